"""What the tests share, imported as `support.<module>` (tests/ is on the path: conftest.py
sits there): `files` (files written and validated as a designer would, a command run with a
deadline), `kits` (small campaigns built from the starter kit's cache), `rounds` (a round's
table for the referee), `tables` (a browser table, and a client of its API), `browser` (the
headless Chromium and the screens it plays on), `processes` (commands run as a terminal runs
them, Ctrl-C included), `pages` (what a PDF's pages say and show), `strategies` (hypothesis
strategies). Fixtures stay in conftest.py; no test imports from it or from another test."""

from pathlib import Path

#: The repository's root: the checkout the tests run in.
ROOT = Path(__file__).resolve().parents[2]
