"""The studio: a live preview of a campaign in the browser, on top of every layer beside cli.

`model` reads the campaign and keeps its cards, diagnostics and difficulty estimates up to date;
`server` serves them (Starlette, uvicorn) and pushes every change to the page (server-sent
events); `static/` holds the page, its script and its style.
"""
