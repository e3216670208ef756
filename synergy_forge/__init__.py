"""synergy-forge: design, referee, playtest and print missions for the card game Synergy."""

__version__ = "0.1.0"
