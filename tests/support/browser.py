"""The headless Chromium the browser tests drive (Debian's package, through Playwright), the
screens it plays on, and what a page may not do on them."""

from __future__ import annotations

import shutil

#: What of the page is wider than its screen: the document itself, and every element reaching
#: past an edge of the viewport outside a box that scrolls it (a table may scroll in its own box).
WIDER = """() => {
    const width = document.documentElement.clientWidth;
    const inScrollBox = (e) => {
        for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
            if (getComputedStyle(a).overflowX !== "visible") return true;
        }
        return false;
    };
    const found = [];
    if (document.documentElement.scrollWidth > window.innerWidth) {
        found.push("the document: " + document.documentElement.scrollWidth + " px");
    }
    for (const e of document.body.querySelectorAll("*")) {
        const box = e.getBoundingClientRect();
        if (box.width && (box.right > width + 0.5 || box.left < -0.5) && !inScrollBox(e)) {
            found.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
                       (typeof e.className === "string" && e.className.trim() ?
                        "." + e.className.trim().split(/\\s+/).join(".") : "") +
                       ": " + Math.round(box.left) + " to " + Math.round(box.right) + " px");
        }
    }
    return found.slice(0, 10);
}"""


# Chromium's headless build (Debian's chromium-headless-shell, Playwright's own choice for
# headless pages): the same Blink, without the full browser's start-up and compositor, for
# about a third less CPU in these tests (docs/performance.md). The full browser still serves
# where only it is installed.
CHROMIUM = shutil.which("chromium-headless-shell") or shutil.which("chromium") or \
    "/usr/bin/chromium"


ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def wait_for(page, script: str, timeout: float = 20_000) -> None:
    """Wait until a condition holds in the page, polled there every 50 ms by one evaluate():
    each evaluate() from the test is a round trip through Playwright's driver and the
    browser (some 8 ms of CPU), and polled from here the waits kept a core busy. (Playwright's
    wait_for_function evaluates a string, which the page's policy rightly forbids; evaluate()
    runs as the debugger, outside it, and its timers are the page's own.)"""
    held = page.evaluate(f"""async () => {{
        const deadline = Date.now() + {float(timeout)};
        while (!Boolean({script})) {{
            if (Date.now() > deadline) return false;
            await new Promise(resolve => setTimeout(resolve, 50));
        }}
        return true;
    }}""")
    if not held:
        raise AssertionError(f"not true after {timeout / 1000:.0f} s: {script}")


#: A phone's screen (an iPhone 12-14's), where the trial found pages wider than the screen.
PHONE = {"width": 390, "height": 844}


LAPTOP = {"width": 1280, "height": 900}


def wider_than_the_screen(page, size: dict | None = None) -> list[str]:
    """What of `page` is wider than its screen (an empty list when it fits), resized to `size`
    first if given (and left at that size)."""
    if size:
        page.set_viewport_size(size)
    return page.evaluate(WIDER)
