"""Results in words and formats for people and machines: a round's verdict explained
(`explain`), a game narrated (`narrate`), playtest reports as text and HTML (`playtest`).
May import the middle layers (authoring, sim, printing) whose results it renders."""
