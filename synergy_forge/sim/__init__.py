"""Games played by bots: goal rules over numpy arrays (`grid`), what a seat can expect of a
round it cannot see (`chances`), the `bots`, whole games (`play`), and the `playtest` that
plays every mission many times and rates it in stars. Imports only `core`: missions and
rulebooks come in loaded, as values."""
