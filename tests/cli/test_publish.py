"""`publish`: a campaign's website. Published once per module from a campaign of three
missions (a challenge, a goal of its own, stars per player count), its kit drawn from the
starter kit's cache; then crawled (every link and image inside the site), opened in Chromium
from file:// at a phone's and a laptop's width, published again (nothing rewritten, no game
played), changed (one estimate played again) and broken (nothing published)."""

from __future__ import annotations

import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from click.testing import CliRunner
from support.browser import LAPTOP, PHONE, wider_than_the_screen
from support.kits import STARTER

from synergy_forge.cli import main

#: Games per table of the ladder: enough for an estimate, little CPU.
GAMES = "2"


def campaign(folder: Path) -> Path:
    """Three missions: 2 has a challenge, 3 the campaign's own goal and stars per player
    count; named as the starter is, so its kit is drawn from the starter kit's cache."""
    (folder / "missions").mkdir(parents=True)
    (folder / "goals").mkdir()
    (folder / "campaign.yaml").write_text(
        f"name: {STARTER}\nlanguages: [en, fr]\nmissions: [missions/*.yaml]\n"
        "goals: [goals/*.yaml]\n", encoding="utf-8")
    (folder / "goals" / "close-call.yaml").write_text(
        "id: close-call\nname: {en: Close call, fr: De justesse}\n"
        "text: {en: Be 1 away from a sum., fr: Soyez à 1 d'une somme.}\n"
        "rule: \"(sum - 1) in others or (sum + 1) in others\"\n", encoding="utf-8")
    extra = {2: "challenges: [minimum-5]\n", 3: "goals: [one-higher, equal, close-call]\n"}
    for n, title in ((1, "First"), (2, "Second"), (3, "Third")):
        stars = "{3: 1, 4: 2, 5: 3}" if n == 3 else "1"
        (folder / "missions" / f"{n}.yaml").write_text(
            f"id: m{n}\nnumber: {n}\ntitle: {{en: {title}, fr: {title} fr}}\nstars: {stars}\n"
            f"rounds: 2\nlives: 2\n{extra.get(n, '')}", encoding="utf-8")
    return folder


def publish(root: Path, *args: str) -> object:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        return CliRunner().invoke(main, ["publish", "camp", "--out", "site", "--games", GAMES,
                                         "--jobs", "1", *args])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, starter_kit: Path) -> Path:
    root = tmp_path_factory.mktemp("publish")
    campaign(root / "camp")
    shutil.copytree(starter_kit / ".cache", root / "site" / "kit" / ".cache")
    result = publish(root)
    assert result.exit_code == 0, result.output
    assert "Published 3 mission(s) in en, fr" in result.output
    return root / "site"


def spaced(text: str) -> str:
    """`text` with its no-break spaces (typography.typeset's) as plain ones."""
    return text.replace("\u00a0", " ").replace("\u202f", " ")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.images: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        for name in ("href", "src"):
            if found.get(name) is not None:
                self.links.append(str(found[name]))
        if tag == "img":
            self.images.append(found)


def crawl(site: Path) -> tuple[list[str], dict[Path, _Links]]:
    """Every page reachable from index.html, and each link that leaves the site or leads
    to nothing (a fragment to no id of its page included)."""
    problems: list[str] = []
    seen: dict[Path, _Links] = {}
    todo = [site / "index.html"]
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        parsed = _Links()
        parsed.feed(page.read_text(encoding="utf-8"))
        seen[page] = parsed
        for link in parsed.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("/"):
                problems.append(f"{page.name}: {link} is not relative")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.is_relative_to(site.resolve()) or not target.is_file():
                problems.append(f"{page.relative_to(site)}: {link} leads to nothing")
            elif target.suffix == ".html":
                todo.append(target)
    for page, parsed in seen.items():  # fragments, once every page is read
        for link in parsed.links:
            parts = urlsplit(link)
            if parts.fragment and not parts.scheme:
                target = (page.parent / parts.path).resolve() if parts.path else page
                if target in seen and parts.fragment not in seen[target].ids:
                    problems.append(f"{page.name}: {link}: no such id")
    return problems, seen


def test_every_link_and_image_resolves_inside_the_site(site: Path):
    problems, pages = crawl(site)
    assert problems == []
    names = sorted(p.relative_to(site).as_posix() for p in pages)
    assert names == sorted(["index.fr.html", "index.html"] + [
        f"missions/0{n}-m{n}{lang}.html" for n in (1, 2, 3) for lang in ("", ".fr")])
    for page, parsed in pages.items():
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), page
        for image in parsed.images:
            assert image.get("alt") is not None, (page, image)
    mission = spaced((site / "missions" / "02-m2.html").read_text(encoding="utf-8"))
    # The card's alt text says what the card says, the challenge's rule included.
    assert 'alt="Mission 2: Second. 1 star. 2 rounds to win. 2 lives.' in mission
    assert "At least 5: Your sum may not be below 5." in mission
    third = spaced((site / "missions" / "03-m3.fr.html").read_text(encoding="utf-8"))
    assert 'alt="Mission 3 : Third fr. 3 j 1 étoile, 4 j 2 étoiles, 5 j 3 étoiles.' in third
    assert "<dt>At least 5</dt><dd>Your sum may not be below 5.</dd>" in mission
    for landmark in ("<header", "<nav", "<main", "<footer"):
        assert landmark in mission


def test_campaign_json_is_the_sites_data(site: Path):
    data = json.loads((site / "campaign.json").read_text(encoding="utf-8"))
    assert [m["id"] for m in data["missions"]] == ["m1", "m2", "m3"]
    for m in data["missions"]:
        assert re.fullmatch(r"[0-9a-f]{16}", m["hash"])
        assert (site / m["page"]["en"]).is_file() and (site / m["page"]["fr"]).is_file()
        estimate = m["estimate"]
        assert set(estimate) >= {"stars", "skill_needed", "skill_low", "skill_high", "games",
                                 "seed"}
        assert estimate["seed"] == 1 and estimate["games"] > 0
        assert 1 <= estimate["stars_low"] <= estimate["stars"] <= estimate["stars_high"] <= 5
    assert data["missions"][2]["stars_per_players"] == {"3": 1, "4": 2, "5": 3}
    assert len({m["hash"] for m in data["missions"]}) == 3
    kit = {k["path"] for k in data["kit"]}
    assert {"kit/en/print-and-play-en.pdf", "kit/fr/print-and-play-fr.pdf"} <= kit
    for k in data["kit"]:
        assert (site / k["path"]).stat().st_size == k["bytes"]


def test_the_french_pages_are_french_with_a_switch_back(site: Path):
    page = (site / "missions" / "01-m1.fr.html").read_text(encoding="utf-8")
    assert '<html lang="fr">' in page
    assert "Difficulté" in page and "First fr" in page
    assert 'href="../missions/01-m1.html" hreflang="en"' in page
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="index.fr.html"' in index


def test_the_colours_hold_aa_contrast(site: Path):
    """Every colour text is set in (site.css's variables) against both backgrounds, the
    page's paper and the cards' white: WCAG AA, 4.5 to 1."""
    from synergy_forge.printing.kit import AA, contrast

    css = (site / "site.css").read_text(encoding="utf-8")
    colours = dict(re.findall(r"--([a-z]+): (#[0-9a-f]{6});", css))
    for text in ("ink", "muted", "accent", "star", "warn"):
        for background in ("paper", "card"):
            assert contrast(colours[text], colours[background]) >= AA, (text, background)


@pytest.mark.parametrize("size", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_the_pages_open_from_file_without_an_error_and_fit(site: Path, browser, size):
    context = browser.new_context(viewport=size)
    try:
        page = context.new_page()
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
        for name in ("index.html", "index.fr.html", "missions/03-m3.html"):
            page.goto((site / name).as_uri())
            page.wait_for_load_state("load")
            assert wider_than_the_screen(page) == [], name
            broken = page.evaluate("() => [...document.images].filter(i => !i.complete || "
                                   "!i.naturalWidth).map(i => i.src)")
            assert broken == [], name
        assert problems == []
        # The keyboard's first stop skips to the content, and shows itself.
        page.goto((site / "index.html").as_uri())
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.className") == "skip"
        assert page.locator("a.skip").bounding_box()["width"] > 20
        # The filters: by challenge, then by stars from the keyboard.
        shown = page.locator("#gallery > li:visible")
        assert shown.count() == 3
        page.select_option("#f-challenge", "minimum-5")
        assert shown.count() == 1 and "Second" in shown.first.inner_text()
        assert page.locator("#shown").inner_text() == "1 of 3 missions shown"
        page.select_option("#f-challenge", "")
        page.focus("#f-stars")
        page.select_option("#f-stars", "3")
        assert shown.count() == 1 and "Third" in shown.first.inner_text()
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "f-players"
    finally:
        context.close()


def test_publishing_again_rewrites_nothing_and_a_change_replays_one_mission(
        site: Path, tmp_path: Path):
    root = tmp_path
    shutil.copytree(site.parent / "camp", root / "camp")
    shutil.copytree(site, root / "site", symlinks=True)
    before = {p: p.stat().st_mtime_ns for p in (root / "site").rglob("*")
              if p.is_file() and ".cache" not in p.parts and p.name != ".lock"}
    again = publish(root)
    assert again.exit_code == 0, again.output
    assert "estimates: 0 played" in again.output and "files: 0 written" in again.output
    after = {p: p.stat().st_mtime_ns for p in before}
    assert [p for p in before if before[p] != after[p]] == []
    mission = root / "camp" / "missions" / "2.yaml"
    mission.write_text(mission.read_text(encoding="utf-8").replace("rounds: 2", "rounds: 3"),
                       encoding="utf-8")
    changed = publish(root)
    assert changed.exit_code == 0, changed.output
    assert "estimates: 1 played" in changed.output
    data = json.loads((root / "site" / "campaign.json").read_text(encoding="utf-8"))
    old = json.loads((site / "campaign.json").read_text(encoding="utf-8"))
    assert [a["hash"] == b["hash"] for a, b in zip(data["missions"], old["missions"],
                                                   strict=True)] == [True, False, True]
    page = (root / "site" / "missions" / "03-m3.html")
    assert page.stat().st_mtime_ns == before[page]


def test_peoples_games_are_on_their_missions_pages(site: Path, tmp_path: Path):
    """Two people and a bot at three seats, in logs of mission 1 (a play log whose seats are
    then named as the table names people's): the page and campaign.json show their games
    and what the model of people predicts; the other missions show none."""
    root = tmp_path
    shutil.copytree(site.parent / "camp", root / "camp")
    shutil.copytree(site, root / "site", symlinks=True)
    (root / "logs").mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root / "camp")
        for seed in (1, 2, 3):
            log = root / "logs" / f"m1-{seed}.jsonl"
            played = CliRunner().invoke(main, ["play", "1", "--players", "3", "--seed",
                                               str(seed), "--bots", "coop", "--quiet",
                                               "--log", str(log)])
            assert played.exit_code == 0, played.output
            header, rest = log.read_text(encoding="utf-8").split("\n", 1)
            data = json.loads(header)
            data["bots"] = ["person", "person", "coop"]
            log.write_text(json.dumps(data) + "\n" + rest, encoding="utf-8")
    result = publish(root, "--human", "logs")
    assert result.exit_code == 0, result.output
    assert "people: 3 game(s) from 3 log(s), 0 left out" in result.output
    data = json.loads((root / "site" / "campaign.json").read_text(encoding="utf-8"))
    (people,) = data["missions"][0]["people"]
    assert people["players"] == 3 and people["games"] == 3
    assert 0 <= people["predicted"]["low"] <= people["predicted"]["value"] <= 1
    assert data["missions"][1]["people"] == [] and data["people"]["games"] == 3
    page = (root / "site" / "missions" / "01-m1.html").read_text(encoding="utf-8")
    assert "People’s games" in page and f"{people['wins']} of 3" in page
    assert "People’s games" not in (root / "site" / "missions" / "02-m2.html").read_text(
        encoding="utf-8")


def test_a_campaign_with_errors_publishes_nothing(tmp_path: Path):
    campaign(tmp_path / "camp")
    (tmp_path / "camp" / "missions" / "2.yaml").write_text(
        "id: m2\nnumber: 2\ntitle: {en: Second}\nstars: 1\nrounds: 2\nlives: 2\n"
        "challenges: [maximum-8]\n", encoding="utf-8")
    result = publish(tmp_path)
    assert result.exit_code == 1, result.output
    assert re.search(r"2\.yaml:7:\d+: error: unknown challenge 'maximum-8'", result.output)
    assert "nothing was published" in result.output
    assert not (tmp_path / "site").exists()


def test_out_follows_the_builds_rules(tmp_path: Path):
    campaign(tmp_path / "camp")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        result = CliRunner().invoke(main, ["publish", "camp", "--out", "camp/missions/web"])
    assert result.exit_code == 2, result.output
    assert "a folder the campaign reads its files from" in result.output
    assert not (tmp_path / "camp" / "missions" / "web").exists()
    # A website no publish made is not written over.
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "index.html").write_text("my own page", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        result = CliRunner().invoke(main, ["publish", "camp", "--out", "web"])
    assert result.exit_code == 2, result.output
    assert "holds index.html, which synergy-forge publish did not write there" in result.output
    assert os.listdir(tmp_path / "web") == ["index.html"]


@pytest.mark.parametrize("inner", ["cards/en", "kit/en", "missions"])
def test_no_folder_the_site_is_written_in_holds_the_campaign(tmp_path: Path, inner: str):
    """`publish --out site` of a campaign kept in site/cards/en/ (where the English card
    images go), site/kit/en/ (the English kit) or site/missions/ (the missions' pages) would
    write among its files: refused before any work and anything is written, as `build`
    refuses OUT/<lang> (one policy, printing.output.check_output_folder). The site is one an
    earlier publish made, whose own folders it may write over."""
    import synergy_forge.workspace.publish as site_module

    out = tmp_path / "site"
    camp = campaign(out / inner)
    (out / ".publish").mkdir()
    (out / ".publish" / "written.json").write_text("[]", encoding="utf-8")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        patch.setattr(site_module, "print_kit",
                      lambda *args, **kwargs: pytest.fail("the kit was built inside the campaign"))
        result = CliRunner().invoke(main, ["publish", str(camp), "--out", "site", "--lang", "en",
                                           "--games", GAMES, "--jobs", "1"])
    assert result.exit_code == 2, result.output
    assert "holds the campaign's own files" in result.output
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
