"""Games played by bots: goal rules over numpy arrays (`grid`), what a seat can expect of a
round it cannot see (`chances`), the `bots` (`greedy`, `coop`, the `expert` with its table
`convention` and `search`, the `oracle`), whole games (`play`), the `playtest` that plays every
mission many times and rates it in stars, on local processes or a cluster (`executors`),
`tune` (the settings that give a mission its stars) and the `calibration` against people's
games. Imports only `core`: missions and rulebooks come in loaded, as values."""
