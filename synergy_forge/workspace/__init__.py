"""The use cases every front end calls (the command line, the studio, the table), between
the middle layers and `reporting`: a campaign found and read once (`campaign`: its missions
by number or id too), the one registry of file kinds (`kinds`), `validate`, `build` (its
cards' fit checked before the print run), the missions to play and a log to replay (`play`),
people's game logs against their campaign (`people`), round files to judge (`rounds`), the
campaign's copy of the schemas (`schemas`), the studio's `snapshot` of a campaign, the
campaign's website (`publish`: its kit, estimates by content hash, files written when changed)
and the one file `watch`er. Results are typed; `reporting` puts them in words."""
