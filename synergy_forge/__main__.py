from synergy_forge.cli import main

main()
