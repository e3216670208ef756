"""One module per command, named after it, each with a click command called `command`
(`synergy_forge.cli.group` finds them)."""
