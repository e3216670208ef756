from synergy_forge.cli import main

# Guarded: worker processes started with "spawn" (the studio's) import this module again.
if __name__ == "__main__":
    main()
