"""Games played by bots: goal rules over numpy arrays (`grid`), what a seat can expect of a round
it cannot see (`chances`), the `bots` (`novice`, `greedy`, `coop`, the `expert` with its table
`convention` and `search`, where hands are hidden its `belief` and round `policy`, and seated
beside novices `mixed`, the `oracle`), the mission `model` that holds what they work out, whole
games (`play`), a table's games and their tallies (`tables`), the skill `ladder` of experts and
novices with its `plan` of which tables to play, what the games say of a mission (`estimate`),
the `playtest` that plays every mission and rates it in stars, on local processes or a cluster
(`executors`), `tune` with its `knobs` (the settings that give a mission its stars), the
`calibration` against people's games and the model of `people` across missions it fits, and the
`review` of a finished game (each decision's chance of winning before and after it, by
rollouts). Imports only `core`: missions and rulebooks come in loaded, as values."""
