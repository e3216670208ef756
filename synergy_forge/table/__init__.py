"""The table: people play a mission together in the browser, one device each, the referee
enforcing every rule and bots in the empty seats (docs/table.md).

`model` holds a table's game, seats and log; `view` says what a seat may see, as JSON data;
`server` serves the seat page and the JSON API on the studio's stack (synergy_forge/web/);
`words` holds the page's words in English and French; `static/` the page, its script and style.
"""
