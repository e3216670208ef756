"""The studio: a live preview of a campaign in the browser, on top of every layer beside cli.

`model` keeps the campaign's cards, diagnostics and difficulty estimates up to date (the
campaign as `workspace.snapshot` reads it, on every save `workspace.watch` sees);
`server` serves them (Starlette, uvicorn) and pushes every change to the page (server-sent
events); `static/` holds the page, its script and its style.
"""
