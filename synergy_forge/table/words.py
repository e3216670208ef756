"""The seat page's words in each language: the printed kit's own strings where they fit (its
catalog, synergy_forge/cardtext/locale), the table's own below. The page asks for them once
(`GET /api/words`) and escapes every one (textContent only)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from synergy_forge.cardtext.glossary import term
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.core.cards import DEFAULT_COLORS
from synergy_forge.core.referee import LossReason
from synergy_forge.reporting.choicewords import CHOICE_WORDS
from synergy_forge.reporting.losses import loss_cause
from synergy_forge.reporting.review import review_words
from synergy_forge.typography import typeset

#: The kit's strings the page shows, by the page's key.
FROM_KIT = {
    "lives": "Lives", "rounds": "Rounds", "actions": "Action cards", "super": "Super card",
    "hyper": "Hyper card", "super-text": "its holder must meet their goal",
    "hyper-text": "if its holder misses their goal, all is lost",
    "may-miss": "May miss their goal", "order": "Play order", "challenges": "Challenges",
    "goals": "Goals", "met": "met", "missed": "missed", "sum": "Sum", "goal": "Goal",
    "number": "Number", "mission-title": "Mission {number}: {title}",
    "starting-hand": "Starting hand",
}

#: The table's own strings: English, French; a choice's words are the review's too
#: (reporting.choicewords: a card or an action named alike on both pages).
OWN: dict[str, tuple[str, str]] = {
    **CHOICE_WORDS,
    "page-title": ("Synergy table", "Table Synergy"),
    "you-are": ("You are seat {seat} ({color})", "Vous êtes la place {seat} ({color})"),
    "you": ("you", "vous"),
    # a person at the table, not a bot: the glossary's word ("personne" reads "nobody")
    "person": (term("player", "en"), term("player", "fr")),
    "bot": ("bot {name}", "bot {name}"),
    "your-hand": ("Your hand", "Votre main"),
    "your-goals": ("Your goal cards", "Vos cartes Objectif"),
    "table": ("The table", "La table"),
    "round-n": ("Round {round}", "Manche {round}"),
    "before-round": ("Before the first round", "Avant la première manche"),
    "in-hand": ("in hand: {numbers}, {goals}", "en main : {numbers}, {goals}"),
    "in-deck": ("decks: {numbers} + {goals}", "pioches : {numbers} + {goals}"),
    "discards": ("discard row", "défausse"),
    "first": ("1st", "1re"),
    "second": ("2nd", "2e"),
    "face-down": ("laid face down", "posée face cachée"),
    "choosing": ("choosing…", "choisit…"),
    "waiting-for": ("Waiting for {who}", "En attente de {who}"),
    "everyone-chose": ("everyone has chosen", "tout le monde a choisi"),
    "prompt-super": ("Give the super card to a seat", "Donnez la Super Carte à une place"),
    "prompt-hyper": ("Give the hyper card to a seat", "Donnez l'Hyper Carte à une place"),
    "prompt-first-number": ("Lay your first number card", "Posez votre première carte numérotée"),
    "prompt-goal": ("Lay a goal card", "Posez une carte Objectif"),
    "prompt-second-number": ("Lay your second number card (only those that keep every "
                             "challenge)",
                             "Posez votre seconde carte numérotée (seules celles qui respectent "
                             "tous les défis)"),
    "prompt-action": ("Use an action card, or none", "Jouez une carte Action, ou aucune"),
    "prompt-take-back": ("Take one of your two number cards back into your hand",
                         "Reprenez en main une de vos deux cartes numérotées"),
    "you-laid": ("You chose: {what}", "Votre choix : {what}"),
    "not-your-turn": ("Not your turn: watch the table.", "Pas votre tour : regardez la table."),
    "round-won": ("Round {round} won", "Manche {round} gagnée"),
    "round-lost": ("Round {round} failed", "Manche {round} perdue"),
    "referee": ("The referee's words", "Les mots de l'arbitre"),
    "won": ("Mission won!", "Mission gagnée !"),
    "again": ("Play again: a new deal", "Rejouer : nouvelle donne"),
    "game-n": ("game {game}", "partie {game}"),
    "lost": ("Mission lost", "Mission perdue"),
    "connecting": ("connecting…", "connexion…"),
    "live": ("live", "en direct"),
    "lost-connection": ("connection lost; reconnecting…", "connexion perdue ; reconnexion…"),
    "refused": ("Refused: {message}", "Refusé : {message}"),
    "give-to": ("give it to seat {seat}", "la donner à la place {seat}"),
    "order-number-goal-number": ("number, goal, number", "nombre, objectif, nombre"),
    "order-goal-number-number": ("goal, number, number", "objectif, nombre, nombre"),
    "language": ("Language", "Langue"),
    "history": ("Earlier rounds", "Manches précédentes"),
    "no-round-yet": ("No round played yet.", "Aucune manche jouée."),
    "no-earlier-round": ("No earlier round.", "Aucune manche avant."),
    "last-round": ("Last round", "Dernière manche"),
    "ignored": ("ignored (J)", "ignoré (J)"),
    "breaks": ("breaks {what}", "enfreint {what}"),
    "unknown-seat": ("This link is not valid: the table has ended or stopped, or the link "
                     "is wrong.",
                     "Ce lien n'est pas valide : la table est fermée ou arrêtée, ou le lien "
                     "est erroné."),
    "used-action": ("seat {seat} used {card}: {what}", "la place {seat} a joué {card} : {what}"),
    # Who is at the table, spectators.
    # of a seat's person, whoever they are: French without a gender
    "connected": ("here", "en ligne"),
    "not-connected": ("not here", "hors ligne"),
    "away-bot": ("away: bot {name} plays", "absent : le bot {name} joue"),
    "handed": ("The host gave your seat to bot {name}; ask them to give it back.",
               "L'hôte a confié votre place au bot {name} ; demandez-lui de vous la rendre."),
    "away-you": ("Bot {name} played for you while you were away.",
                 "Le bot {name} a joué pour vous pendant votre absence."),
    "watching": ("Watching", "Spectateur"),
    "watch-turn": ("You are watching: hands stay hidden until the game is over.",
                   "Vous regardez : les mains restent cachées jusqu'à la fin de la partie."),
    "hand-at-end": ("in hand at the end", "en main à la fin"),
    "deck-at-end": ("left in the deck", "restées dans la pioche"),
    "decisions": ("Every decision", "Toutes les décisions"),
    "by-person": (term("player", "en"), term("player", "fr")),
    "table-ended": ("This table has ended. Thank you for playing!",
                    "Cette table est terminée. Merci d'avoir joué !"),
    "review": ("Review the game: what each decision did to the chances",
               "Revoir la partie : l'effet de chaque décision sur les chances"),
    # The host's page.
    "host-title": ("Host: {title}", "Hôte : {title}"),
    "host-seats": ("Seats and their links", "Les places et leurs liens"),
    "host-link-help": ("Send each link to its player only, or let them scan its code: a "
                       "seat's link is its key.",
                       "Envoyez chaque lien à qui joue cette place seulement, ou faites-lui "
                       "scanner son code : le lien d'une place en est la clé."),
    "qr-of": ("QR code of the link of seat {seat}", "Code QR du lien de la place {seat}"),
    "qr-watch": ("QR code of the spectators' link", "Code QR du lien des spectateurs"),
    "played-by": ("Played by", "Jouée par"),
    "a-person": ("its player", "son joueur ou sa joueuse"),
    "bot-name": ("bot {name}", "le bot {name}"),
    "away-title": ("Someone leaves", "Quelqu'un s'en va"),
    "away-help": ("A seat whose person has had no page open for longer than this is played "
                  "by a bot until they come back.",
                  "Une place dont la personne n'a plus de page ouverte depuis plus longtemps "
                  "que ceci est jouée par un bot jusqu'à son retour."),
    "away-after": ("After", "Après"),
    "away-never": ("never", "jamais"),
    "minutes": ("{n} min", "{n} min"),
    "seconds": ("{n} s", "{n} s"),
    "away-by": ("by the bot", "par le bot"),
    "watch-title": ("Spectators", "Spectateurs"),
    "watch-help": ("Anyone with this link sees the table as it is face up: no hand before "
                   "the end of the game.",
                   "Quiconque a ce lien voit la table, cartes visibles seulement : aucune main "
                   "avant la fin de la partie."),
    "game-title": ("The game", "La partie"),
    "game-on": ("Game {game}, round {round}", "Partie {game}, manche {round}"),
    "rematch-same": ("Rematch: the same deal", "Revanche : la même donne"),
    "rematch-new": ("Rematch: a new deal", "Revanche : une nouvelle donne"),
    "next-mission": ("Next mission of the campaign", "Mission suivante de la campagne"),
    "evening": ("This evening", "Cette soirée"),
    "no-game-yet": ("No game finished yet.", "Aucune partie terminée."),
    "game-result": ("Game {game}: mission {number} {title}: {result}",
                    "Partie {game} : mission {number} {title} : {result}"),
    "end-title": ("End the table", "Fermer la table"),
    "end-help": ("Every page of this table says it has ended, its links stop working, and "
                 "its bots stop.",
                 "Chaque page de cette table annonce sa fin, ses liens ne marchent plus et "
                 "ses bots s'arrêtent."),
    "end": ("End the table", "Fermer la table"),
    "end-sure": ("Yes, end it now", "Oui, la fermer maintenant"),
    "cancel": ("Cancel", "Annuler"),
    "rule-failed": ("The game cannot go on: a rule of the campaign fails here",
                    "La partie ne peut continuer : une règle de la campagne échoue ici"),
    "done": ("Done.", "Fait."),
}

LANGUAGES = ("en", "fr")


def plurals(translator: Translator) -> dict[str, dict[str, str]]:
    """The words that hold a count, each as its count's parameter ("count") and its forms by
    CLDR plural category ("one", "other": the page picks with Intl.PluralRules, which agrees
    with the catalog's Plural-Forms in English and French: French "one" is 0 and 1). The
    forms come from the catalog through ngettext, so that extraction keeps them."""
    n = translator.ngettext

    def forms(count: str, one: str, other: str) -> dict[str, str]:
        return {"count": count, "one": one, "other": other}

    return {
        "rounds-won": forms("rounds", n("{won} of {rounds} round won",
                                        "{won} of {rounds} rounds won", 1),
                            n("{won} of {rounds} round won", "{won} of {rounds} rounds won", 2)),
        "lives-left": forms("total", n("{lives} of {total} life", "{lives} of {total} lives", 1),
                            n("{lives} of {total} life", "{lives} of {total} lives", 2)),
        "n-lives-left": forms("lives", n("{lives} life left", "{lives} lives left", 1),
                              n("{lives} life left", "{lives} lives left", 2)),
        "failures": forms("failures", n("{failures} missed, {allowed} allowed",
                                        "{failures} missed, {allowed} allowed", 1),
                          n("{failures} missed, {allowed} allowed",
                            "{failures} missed, {allowed} allowed", 2)),
        "n-numbers": forms("n", n("{n} number card", "{n} number cards", 1),
                           n("{n} number card", "{n} number cards", 2)),
        "n-goals": forms("n", n("{n} goal card", "{n} goal cards", 1),
                         n("{n} goal card", "{n} goal cards", 2)),
        "pages-open": forms("pages", n("{pages} page open", "{pages} pages open", 1),
                            n("{pages} page open", "{pages} pages open", 2)),
    }


def words() -> dict[str, Any]:
    """{language: {key: text}}, with the colour names under "colors" and the review page's
    words under "review-page": a copy of its own for each caller (translated once per process)."""
    return json.loads(_words_json())


@cache  # a pure function of the package's catalogs, kept as immutable text (words)
def _words_json() -> str:
    return json.dumps(_translated())


def _translated() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index, language in enumerate(LANGUAGES):
        translator = Translator(language)
        translate = translator.gettext
        table: dict[str, Any] = {key: translate(text) for key, text in FROM_KIT.items()}
        # French as the kit's catalog gives it (narrow no-break spaces before ":", "?", ...)
        table.update({key: typeset(texts[index], language) if language == "fr" else
                      texts[index] for key, texts in OWN.items()})
        table.update(plurals(translator))
        # why a mission was lost: the referee's own words (reporting.losses), translated
        table.update({f"lost-{reason}": loss_cause(reason, translator) for reason in LossReason})
        table["colors"] = {c: translate(c) for c in DEFAULT_COLORS}
        table["review-page"] = review_words(language)  # the review page's (server.py draws it)
        out[language] = table
    return out
