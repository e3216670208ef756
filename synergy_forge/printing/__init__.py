"""The print-and-play kit, one module per job: which cards exist (`kit`), how they sit on a sheet
(`layout`), the templates made HTML (`html`), WeasyPrint and PDFium (`draw`, with the worker
processes of `workers`), the studio's one face (`preview`), the cache (`store`), PDFs merged with
reproducible bytes (`pdf`), the locked output folder (`output`), a build's options and documents
(`jobs`), the kit checked against what the engine deals and plays (`components`), one piece drawn on
a worker (`piece`), pieces assembled (`build`), a print run as one call (`print_run`), and the
exports: a print shop's manifest of face, back and quantity (`manifest`), Tabletop Simulator
(`tts`), DriveThruCards' CMYK decks (`dtc`, its colours by `press`, checked by `preflight`). Imports
`cardtext` and `core`."""
