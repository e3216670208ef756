"""Goal rules run over a whole grid of possible tables at once.

A goal's rule is a Jinja expression over one table (rulelang.VARIABLES). To weigh every table
a seat cannot rule out (synergy_forge.chances), the very tree the referee compiles (parsed and
checked once by `rulelang.checked_rule`) is run here on numpy arrays instead of numbers: `sum`,
`left` and `right` become arrays with one axis per seat, `others`, `sums` and `distinct`
collections of such arrays. There is no second copy of any rule, and no second parser:
built-in goals and a campaign's own run through the same code.

Only what an array can mean exactly is accepted: arithmetic, comparisons (chained too), `in`
and `not in` over the collections or a literal list, `and`/`or`/`not` and `x if c else y` in a
condition, the tests `none`, `odd` and `even`, the filters `length`, `count`, `min`, `max`,
`sum` and `abs`, and `distinct[k]` for a whole-number k. A rule using anything else (or
indexing `sums` or `others`, whose order the referee does not promise) gets no grid rule, and
the chances are computed table by table instead. `distinct` is its own kind of collection: its
length and its sum count each value once, as the referee's `sorted(set(sums))` does. Where the
expression would fail on some table that matters (a missing neighbour compared, `distinct[k]`
past the end, a division by zero), the call raises `Unsettled` so that the caller can take the
table-by-table way, which reports the failure as the referee would.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from jinja2 import nodes

from synergy_forge.core.rulelang import RuleKind, checked_rule


class NotOnGrid(Exception):
    """The rule uses something that has no exact meaning over arrays."""


class Unsettled(Exception):
    """On some table that matters, the rule would fail rather than answer."""


class Many:
    """A collection of per-table values (`others`, `sums`, `distinct` or a literal list).

    Members are arrays or numbers; their order is never used. What `distinct` needs (which
    members are the first of their value, and how many distinct values lie below each) is
    worked out once and shared by every seat that reads the same collection.
    """

    def __init__(self, members: Sequence[Any]) -> None:
        self.members = tuple(members)
        self._firsts: list[Any] | None = None
        self._ranks: list[Any] | None = None
        self._count: Any = None
        self._distinct: Distinct | None = None

    def distinct(self) -> Distinct:
        """The same values, each counted once (the rules' `distinct`, R11)."""
        if self._distinct is None:
            self._distinct = Distinct(self)
        return self._distinct

    def firsts(self) -> list[Any]:
        if self._firsts is None:
            self._firsts = []
            for j, m in enumerate(self.members):
                first: Any = True
                for earlier in self.members[:j]:
                    first = both(first, earlier != m)
                self._firsts.append(first)
        return self._firsts

    def distinct_count(self) -> Any:
        if self._count is None:
            self._count = count_true(self.firsts())
        return self._count

    def ranks(self) -> list[Any]:
        """Per member, how many distinct values are smaller than it."""
        if self._ranks is None:
            firsts = self.firsts()
            pairs = list(zip(self.members, firsts, strict=True))
            self._ranks = [count_true(both(f, other < m) for other, f in pairs)
                           for m in self.members]
        return self._ranks


class Distinct:
    """`distinct`: the values of a collection, each once. Its members are the collection's,
    and every question about size or total counts only the first member of each value, as the
    referee's `sorted(set(sums))` does (`distinct | sum` adds each value once)."""

    def __init__(self, many: Many) -> None:
        self.many = many
        self.members = many.members

    def length(self) -> Any:
        return self.many.distinct_count()

    def total(self) -> Any:
        return sum((m * f for m, f in zip(self.members, self.many.firsts(), strict=True)),
                   start=0)


_ARITHMETIC: dict[type, Callable[[Any, Any], Any]] = {
    nodes.Add: operator.add, nodes.Sub: operator.sub, nodes.Mul: operator.mul,
    nodes.Div: np.true_divide, nodes.FloorDiv: np.floor_divide, nodes.Mod: np.mod,
}
_ORDER: dict[str, Callable[[Any, Any], Any]] = {
    "lt": operator.lt, "lteq": operator.le, "gt": operator.gt, "gteq": operator.ge,
}


def _live(mask: Any) -> bool:
    return bool(np.any(mask))


def both(a: Any, b: Any) -> Any:
    """a & b, without an array operation when either side is plainly true."""
    if a is True:
        return b
    if b is True:
        return a
    return a & b


def count_true(conditions: Any) -> Any:
    """How many of the conditions hold, table by table."""
    total: Any = None
    for condition in conditions:
        # numpy adds two booleans as "or": the first term becomes a number before adding.
        total = condition + 0 if total is None else total + condition
    return 0 if total is None else total


def _any_of(values: Any) -> Any:
    """The | of several conditions; False for none."""
    found: Any = False
    for value in values:
        found = value if found is False else found | value
    return found


class _Seat:
    """What one seat's rule can read, over the grid."""

    def __init__(self, own: Any, others: Many, everyone: Many, left: Any, right: Any) -> None:
        self.names = {"sum": own, "others": others, "sums": everyone,
                      "distinct": everyone.distinct(), "left": left, "right": right}


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool | np.bool_) or \
        (isinstance(value, np.ndarray) and value.dtype == bool)


def _number(value: Any, active: Any) -> Any:
    """`value` used as a number; a missing neighbour is fine only where nothing depends on it."""
    if isinstance(value, Many | Distinct):
        raise NotOnGrid("a list where a number was expected")
    if value is None:
        if _live(active):
            raise Unsettled("a missing neighbour is used as a number")
        return 0
    if isinstance(value, _Nth):
        return value.value()
    return value


def _constant_int(node: nodes.Node) -> int:
    if isinstance(node, nodes.Const) and type(node.value) is int:
        return node.value
    if isinstance(node, nodes.Neg):
        return -_constant_int(node.node)
    raise NotOnGrid("only a whole-number constant may index distinct")


def _truth(node: nodes.Node, seat: _Seat, active: Any) -> Any:
    """The truth of `node` where `active`; `and`/`or` evaluate their right side only where
    Python would."""
    if isinstance(node, nodes.And | nodes.Or):
        left = _truth(node.left, seat, active)
        go_on = left if isinstance(node, nodes.And) else np.logical_not(left)
        right = _truth(node.right, seat, both(active, go_on))
        return (left & right) if isinstance(node, nodes.And) else (left | right)
    if isinstance(node, nodes.Not):
        return np.logical_not(_truth(node.node, seat, active))
    value = _value(node, seat, active)
    if isinstance(value, _Nth):
        value = value.value()
    if value is None:
        return False
    if isinstance(value, Many | Distinct):
        return bool(value.members)
    if _is_bool(value):
        return value
    return value != 0


def _value(node: nodes.Node, seat: _Seat, active: Any) -> Any:
    if isinstance(node, nodes.Name):
        if node.name not in seat.names:
            raise NotOnGrid(f"unknown variable {node.name}")
        return seat.names[node.name]
    if isinstance(node, nodes.Const):
        if node.value is not None and type(node.value) not in (int, float, bool):
            raise NotOnGrid("only numbers, true, false and none")
        return node.value
    if isinstance(node, nodes.List | nodes.Tuple):
        return Many([_number(_value(item, seat, active), active) for item in node.items])
    if isinstance(node, nodes.BinExpr) and type(node) in _ARITHMETIC:
        left = _number(_value(node.left, seat, active), active)
        right = _number(_value(node.right, seat, active), active)
        if isinstance(node, nodes.Div | nodes.FloorDiv | nodes.Mod):
            if _live(both(active, right == 0)):
                raise Unsettled("division by zero")
            with np.errstate(divide="ignore", invalid="ignore"):  # where nothing is at stake
                return _ARITHMETIC[type(node)](left, right)
        return _ARITHMETIC[type(node)](left, right)
    if isinstance(node, nodes.Neg):
        return -_number(_value(node.node, seat, active), active)
    if isinstance(node, nodes.Pos):
        return _number(_value(node.node, seat, active), active)
    if isinstance(node, nodes.Compare):
        return _compare(node, seat, active)
    if isinstance(node, nodes.Not | nodes.And | nodes.Or):
        if isinstance(node, nodes.Not):
            return _truth(node, seat, active)
        raise NotOnGrid("and/or give one of their operands, used here as a value")
    if isinstance(node, nodes.CondExpr):
        if node.expr2 is None:
            raise NotOnGrid("an if without else")
        test = _truth(node.test, seat, active)
        yes_where, no_where = both(active, test), both(active, np.logical_not(test))
        yes = _number(_value(node.expr1, seat, yes_where), yes_where)
        no = _number(_value(node.expr2, seat, no_where), no_where)
        return np.where(test, yes, no)
    if isinstance(node, nodes.Test):
        return _test(node, seat, active)
    if isinstance(node, nodes.Filter):
        return _filter(node, seat, active)
    if isinstance(node, nodes.Getitem):
        return _distinct_at(node, seat, active)
    raise NotOnGrid(f"{type(node).__name__} is not supported on the grid")


def _compare(node: nodes.Compare, seat: _Seat, active: Any) -> Any:
    result: Any = True
    current = _value(node.expr, seat, active)
    for operand in node.ops:
        where = both(active, result)
        following = _value(operand.expr, seat, where)
        op = operand.op
        if op in ("in", "notin"):
            if not isinstance(following, Many | Distinct) or \
                    isinstance(current, Many | Distinct):
                raise NotOnGrid("'in' needs a number on the left and a list on the right")
            if isinstance(current, _Nth):
                current = current.value()
            found = False if current is None else \
                _any_of(member == current for member in following.members)
            outcome = found if op == "in" else np.logical_not(found)
        elif isinstance(current, Many | Distinct) or isinstance(following, Many | Distinct):
            raise NotOnGrid("lists are only used with 'in', filters and distinct[k]")
        elif current is None or following is None:
            if op in _ORDER:
                if _live(where):
                    raise Unsettled("a missing neighbour is compared")
                outcome = False
            else:
                same = current is None and following is None
                outcome = same if op == "eq" else not same
        elif op in ("eq", "ne"):
            if isinstance(following, _Nth) or isinstance(current, _Nth):
                nth, x = (following, current) if isinstance(following, _Nth) else \
                    (current, following)
                outcome = nth.equals(_number(x, where), seat.names["sum"])
            else:
                outcome = current == following
            if op == "ne":
                outcome = np.logical_not(outcome)
        else:
            outcome = _ORDER[op](_number(current, where), _number(following, where))
        result = both(result, outcome)
        current = following
    return result


def _test(node: nodes.Test, seat: _Seat, active: Any) -> Any:
    if node.args or node.kwargs or node.dyn_args or node.dyn_kwargs:
        raise NotOnGrid("tests with arguments are not supported")
    value = _value(node.node, seat, active)
    if node.name == "none":
        return value is None
    if node.name in ("odd", "even"):
        if value is None:
            if _live(active):
                raise Unsettled("parity of a missing neighbour")
            return False
        odd = _number(value, active) % 2 == 1
        return odd if node.name == "odd" else np.logical_not(odd)
    raise NotOnGrid(f"the test {node.name} is not supported")


def _filter(node: nodes.Filter, seat: _Seat, active: Any) -> Any:
    if node.args or node.kwargs or node.dyn_args or node.dyn_kwargs or node.node is None:
        raise NotOnGrid("filters with arguments are not supported")
    value = _value(node.node, seat, active)
    name = node.name
    if name == "abs":
        return np.abs(_number(value, active))
    if not isinstance(value, Many | Distinct):
        raise NotOnGrid(f"the filter {name} is supported on lists only")
    if name in ("length", "count"):
        return value.length() if isinstance(value, Distinct) else len(value.members)
    if name == "sum":
        return value.total() if isinstance(value, Distinct) else sum(value.members)
    if name in ("min", "max"):
        if not value.members:
            if _live(active):
                raise Unsettled(f"{name} of an empty list")
            return 0
        pick = np.minimum if name == "min" else np.maximum
        result = value.members[0]
        for member in value.members[1:]:
            result = pick(result, member)
        return result
    raise NotOnGrid(f"the filter {name} is not supported")


class _Nth:
    """`distinct[k]`, kept unworked: compared for (in)equality it needs no ranking at all."""

    def __init__(self, many: Many, k: int) -> None:
        self.many, self.k = many, k

    def equals(self, x: Any, own: Any) -> Any:
        """x == distinct[k]: x is one of the values and exactly |k| (or -k-1) lie beyond it."""
        members, firsts = self.many.members, self.many.firsts()
        compare = operator.lt if self.k >= 0 else operator.gt
        beyond = count_true(both(f, compare(m, x))
                        for m, f in zip(members, firsts, strict=True) if m is not x)
        found = beyond == (self.k if self.k >= 0 else -self.k - 1)
        if x is own:  # a seat's own sum is always one of the values
            return found
        return found & _any_of(m == x for m in members)

    def value(self) -> Any:
        count = self.many.distinct_count()
        at = self.k if self.k >= 0 else count + self.k
        result: Any = 0
        for member, first, rank in zip(self.many.members, self.many.firsts(), self.many.ranks(),
                                       strict=True):
            result = result + member * (first & (rank == at))
        return result


def _distinct_at(node: nodes.Getitem, seat: _Seat, active: Any) -> _Nth:
    if not (isinstance(node.node, nodes.Name) and node.node.name == "distinct"):
        raise NotOnGrid("only distinct[k] may be indexed; the order of other lists is not set")
    k = _constant_int(node.arg)
    many: Many = seat.names["distinct"].many
    count = many.distinct_count()
    if _live(both(active, (count <= k) if k >= 0 else (count < -k))):
        raise Unsettled(f"distinct[{k}] is past the end")
    return _Nth(many, k)


class GridRule:
    """A goal rule, callable over the grid: (own, others, everyone, left, right) -> met."""

    def __init__(self, rule: str) -> None:
        self.rule = rule
        expression, problem = checked_rule(RuleKind.GOAL, rule)
        if expression is None:  # the referee refuses it too; the linter says why
            raise NotOnGrid(problem or "the rule does not compile")
        self._expression: nodes.Expr = expression
        # What may leave the rule unsettled on some table (see `settled`).
        self._risks = {_risk(node) for node in (expression, *expression.find_all(nodes.Node))}
        self._risks.discard(None)

    def settled(self, neighbours: bool) -> bool:
        """True when no table can leave the rule unsettled, `neighbours` saying whether the
        seat has both its neighbours (R10, R14): it reads no missing neighbour and no `none`,
        divides by nothing, takes no min or max and indexes nothing (every way to Unsettled).
        Such a rule need only be run for a seat that is asked about."""
        return not (self._risks - {"neighbour"} if neighbours else self._risks)

    def __call__(self, own: Any, others: Many, everyone: Many, left: Any, right: Any) -> Any:
        return _truth(self._expression, _Seat(own, others, everyone, left, right), True)

    def _visit_all(self, left_known: bool) -> None:
        """Run every node once with nothing at stake: raises NotOnGrid for what is missing."""
        a, b, c = (np.arange(3).reshape(3, 1, 1), np.arange(2).reshape(1, 2, 1),
                   np.arange(4).reshape(1, 1, 4))
        left, right = (b, c) if left_known else (None, None)
        _truth(self._expression, _Seat(a, Many([b, c]), Many([a, b, c]), left, right), False)


def _risk(node: nodes.Node) -> str | None:
    """How `node` may make a rule unsettled: "neighbour" (a neighbour, missing when seats
    are ignored), "other" (none, a division, a min or max, an index), or None."""
    if isinstance(node, nodes.Name) and node.name in ("left", "right"):
        return "neighbour"
    if (isinstance(node, nodes.Const) and node.value is None) or \
            isinstance(node, nodes.Div | nodes.FloorDiv | nodes.Mod | nodes.Getitem) or \
            (isinstance(node, nodes.Filter) and node.name in ("min", "max")):
        return "other"
    return None


def grid_rule(rule: str) -> GridRule | None:
    """The goal `rule` as a GridRule, or None when it uses what the grid cannot run."""
    try:
        compiled = GridRule(rule)
        compiled._visit_all(True)
        compiled._visit_all(False)
    except Exception:  # NotOnGrid, or a rule the language refuses (the linter reports those)
        return None
    return compiled
