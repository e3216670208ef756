"""The game itself, pure: `cards`, goals and challenges as data (`rules`, written in the rule
language of `rulelang`, with their `native` twins), the action cards' uses and effects
(`actions`, one table), the round `referee`, the `mission` and campaign model, the `choices` a
game asks for and their one notation (ids, JSON values, the state id), the `engine` that plays a
whole mission (its state), what it is played with and leaves (`records`: its setup, rounds and
outcome), what of a mission changes play and its content hash (`playhash`), what each seat may
see of it (`observation`), and `memo`, the bounded memo kept by whoever owns what it remembers
(the bots' mission model, a bot's memory). No files, no processes, no output formats: everything
here is a value in, a value out, and imports nothing else of the package but its shared errors."""
