"""What the web apps (the studio, the table) share: one server stack, one set of defences.

`server` holds the Starlette/uvicorn plumbing both use: the strict Content-Security-Policy and
the other security headers, the Host header check, static files served by name from a fixed
list, server-sent events, bounded request bodies and rates, and starting and stopping uvicorn
on a socket bound before the URL is printed; `static` the icon both serve at /favicon.ico.
"""
