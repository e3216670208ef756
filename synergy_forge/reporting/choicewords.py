"""A choice said to a person, in their language, as the table's seat page says it: a number
card by its colour and value ("red 3", "rouge 3"), a goal card by its colour and its goal's
printed name, a seat by its number, an action card by its letter and printed name, then what
it does. The words are the table's (table/words.py serves them to its pages, whose script
fills them in alike); the notation of logs and of the API stays core.choices'."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from synergy_forge.core.actions import ActionUse
from synergy_forge.core.cards import Action, GoalCard, NumberCard
from synergy_forge.core.choices import Choice
from synergy_forge.core.rules import ActionText, Rulebook

#: What a choice says, by key: English, French (French typeset by each user of them).
CHOICE_WORDS: dict[str, tuple[str, str]] = {
    "seat": ("seat {seat}", "place {seat}"),
    "no-action": ("No action", "Aucune action"),
    # before a definition: French sets a narrow no-break space before the colon
    "colon": (": ", "\u202f: "),
    "action-A": ("take {cards} back from your discard row",
                 "reprendre {cards} de votre défausse"),
    "action-B": ("swap your first number card for {card} from your hand",
                 "échanger votre première carte numérotée contre {card} de votre main"),
    "action-C": ("take {cards} back from your discard row",
                 "reprendre {cards} de votre défausse"),
    "action-D": ("exchange goal cards with seat {other}",
                 "échanger vos cartes Objectif avec la place {other}"),
    "action-E": ("exchange the goal cards of seats {a} and {b}",
                 "échanger les cartes Objectif des places {a} et {b}"),
    "action-F": ("add 1 to seat {target}'s first number card",
                 "ajouter 1 à la première carte numérotée de la place {target}"),
    "action-G": ("take 1 from seat {target}'s first number card",
                 "retirer 1 à la première carte numérotée de la place {target}"),
    "action-H": ("let one more player miss this round",
                 "permettre à un joueur de plus de manquer cette manche"),
    "action-I": ("exchange the first number cards of seats {a} and {b}",
                 "échanger les premières cartes numérotées des places {a} et {b}"),
    "action-J": ("be ignored this round", "être ignoré(e) cette manche"),
}


def say_choice(choice: Choice, words: Mapping[str, str], color: Callable[[str], str],
               language: str, rulebook: Rulebook, actions: Mapping[Action, ActionText]
               ) -> str:
    """`choice` in `words` (CHOICE_WORDS' keys, in `language`), each colour named by
    `color`, goals and action cards by their printed names (the game's `rulebook`, the
    campaign's `actions`)."""
    def card(c: NumberCard) -> str:
        return f"{color(c.color)} {c.value}"

    if choice is None:
        return words["no-action"]
    if isinstance(choice, NumberCard):
        return card(choice)
    if isinstance(choice, GoalCard):
        goal = rulebook.goals.get(choice.goal)
        return f"{color(choice.color)} {goal.label(language) if goal else choice.goal}"
    if isinstance(choice, ActionUse):
        return action_words(choice, words, card, language, actions)
    return words["seat"].format(seat=choice)


def action_words(use: ActionUse, words: Mapping[str, str], card: Callable[[NumberCard], str],
                 language: str, actions: Mapping[Action, ActionText]) -> str:
    """"F (Name): add 1 to seat 2's first number card", as the seat page offers it."""
    printed = actions.get(use.card)
    name = printed.label(language) if printed else ""
    letter = f"{use.card} ({name})" if name else str(use.card)
    first, second = use.seats or ("", "")
    what = words[f"action-{use.card}"].format(
        cards=" + ".join(card(c) for c in use.cards or ()),
        card=card(use.replacement) if use.replacement else "", other=use.other,
        target=use.target, a=first, b=second)
    return letter + words["colon"] + what
