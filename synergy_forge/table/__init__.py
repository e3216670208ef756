"""The table: people play a mission together in the browser, one device each, the referee
enforcing every rule and bots in the empty seats (docs/table.md).

`model` holds a table's games, seats, links and log, the host's controls and the bots;
`presence` says who is here and who is away; `view` says what a seat or a spectator may see,
as JSON data, and `pages` encodes what each page is sent; `store` keeps every table and
decision in SQLite, and `session` resumes a server's tables from it; `review` makes the
review of a finished game; `server` serves the seat, spectators' and host's pages and the
JSON API on the studio's stack (synergy_forge/web/); `words` holds the pages' words in
English and French; `static/` the pages (the head and header they share, static/page.html,
and each one's body), their scripts (the helpers they share, static/page.js) and style.
"""
