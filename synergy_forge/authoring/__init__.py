"""What designers write, read and checked: the YAML reader with positions (`yamlfile`),
`diagnostics` at FILE:LINE:COLUMN, the JSON Schemas (`schema`), the campaign's path policy
(`paths`), goal and challenge `definitions`, `loading` missions and campaigns (what a reading gave
`kept` for the next), `lint` (checks beyond the schema) and its `flavour` texts' numbers, round
files (`roundfile`) and `judging` them, the `scaffold` of new files, the game log's encoding and
replay (`gamelog`), and `edit` (a mission's values changed in place). Imports `cardtext` and
`core`."""
