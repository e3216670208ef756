"""The game itself, pure: cards, goals and challenges as data (`rules`, with their `native`
twins), the round `referee`, the `mission` and campaign model, and the `engine` that plays a
whole mission. No files, no processes, no output formats: everything here is a value in, a
value out, and imports nothing else of the package but its shared errors."""
