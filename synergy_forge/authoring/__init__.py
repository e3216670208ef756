"""What designers write, read and checked: the YAML reader with positions (`yamlfile`),
`diagnostics` at FILE:LINE:COLUMN, the JSON Schemas (`schema`), goal and challenge
`definitions`, `loading` missions and campaigns, `lint` (checks beyond the schema), round
files for `judge` (`roundfile`), `validate`, the `scaffold` of new files, and the game log's
encoding and replay (`gamelog`). Imports only `core`."""
