"""What a card says and whether it fits, below both `authoring` (validate reports texts that
cannot fit) and `printing` (the templates print the fitted sizes): the card's geometry in mm
(`geometry`), the bundled fonts' metrics and the fitting (`fonts`), the fixed strings in each
language (`i18n`, from the catalogues of `locale/`), the game's words, one term per concept
(`glossary`), and a mission card's rules block, laid out and checked (`mission`). Imports
`core` and the root helpers only; computes from the fonts' metrics, never renders.
"""
