"""Random RSP-QL queries, built from a :class:`Plan`: a seed and its constructs.

Every part of a query (each window's width and slide, the base pattern, the
OPTIONAL, the FILTER, ...) is drawn from its own ``random.Random`` seeded
with the plan's seed and the part's name. A plan without one construct
(:meth:`Plan.without`) therefore renders the same query less that construct,
which is how a failure is reduced to the constructs it needs before its
stream is shrunk::

    plan(seed 7, {optional, filter, aggregates})
      -> SELECT ?x (COUNT(*) AS ?n) ... WINDOW :w1 { ?x :n ?v1 OPTIONAL {...} } FILTER(...)
    plan.without("optional")
      -> SELECT ?x (COUNT(*) AS ?n) ... WINDOW :w1 { ?x :n ?v1 } FILTER(...)

A query never leaves its answer to the implementation: LIMIT comes only
after an ORDER BY over every projected variable, each of a kind SPARQL
orders totally (:data:`.patterns.ORDERABLE`), numbers tie-broken by their
lexical form; MIN and MAX are over numbers only, and no aggregate depends on
the order of its values (no SAMPLE, no GROUP_CONCAT).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from pytest_rspbench.explore import patterns as P
from pytest_rspbench.explore.data import EX, XSD
from pytest_rspbench.explore.patterns import ORDERABLE, Part, Var

STREAMS = (EX + "stream1", EX + "stream2")
SLIDES = (500, 1000, 2000)
GRID = 250  # ms: every width, slide and event time is a multiple of it


@dataclass(frozen=True)
class Window:
    """``FROM NAMED WINDOW :name ON STREAM <stream> [RANGE width STEP slide]``.

    A count window (``kind`` rows or triples) counts ``width`` elements and
    slides every ``slide``; a session window's gap is its ``width``.
    """

    name: str
    stream: str
    width: int
    slide: int
    kind: str = "time"

    @property
    def body(self) -> str:
        """What goes between the brackets.

        >>> Window("w", "s", 3, 1, "rows").body, Window("w", "s", 500, 500, "session").body
        ('ROWS 3 STEP 1', 'SESSION 500')
        """
        if self.kind == "time":
            return f"RANGE {self.width} STEP {self.slide}"
        if self.kind == "session":
            return f"SESSION {self.width}"
        return f"{self.kind.upper()} {self.width} STEP {self.slide}"


@dataclass(frozen=True)
class Plan:
    """What a query is made of: its seed, size, R2S operator, constructs,
    how many streams its windows may read and the window kinds it may use."""

    seed: int
    size: int
    r2s: str
    constructs: frozenset[str]
    streams: int = 2
    kinds: tuple[str, ...] = ("time",)

    def without(self, construct: str) -> Plan:
        """The plan less ``construct`` (LIMIT needs ORDER BY: it goes with it)."""
        dropped = {construct} | ({"limit"} if construct == "order-by" else set())
        return replace(self, constructs=self.constructs - dropped)


@dataclass(frozen=True)
class Query:
    """A rendered query: its text, windows and the predicates it matches."""

    text: str
    windows: tuple[Window, ...]
    predicates: frozenset[str]

    @property
    def streams(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(w.stream for w in self.windows))


def draw_plan(
    rng: random.Random,
    size: int,
    allowed: frozenset[str],
    r2s: tuple[str, ...],
    streams: int,
    kinds: tuple[str, ...] = ("time",),
) -> Plan:
    """A plan of ``size`` using some of the ``allowed`` constructs.

    Larger sizes use more constructs (at most ``1 + size // 2``); LIMIT only
    with ORDER BY; a second window needs ``two-windows``.
    """
    chance = min(0.6, 0.15 + 0.07 * size)
    chosen = {c for c in sorted(allowed) if rng.random() < chance}
    while len(chosen) > 1 + size // 2:
        chosen.discard(rng.choice(sorted(chosen)))
    if "limit" in chosen and "order-by" not in chosen:
        chosen.discard("limit")
    seed = rng.randrange(2**31)
    return Plan(seed, size, rng.choice(r2s), frozenset(chosen), streams, kinds or ("time",))


def render(plan: Plan) -> Query:
    """The RSP-QL text of ``plan``."""
    drawn = _Drawn(plan)
    return Query(drawn.text(), drawn.windows, drawn.predicates)


class _Drawn:
    """One rendering: every part drawn from its own generator."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.on = plan.constructs
        self.windows = self._windows(plan.streams)
        self.blocks = [self._block(k) for k in range(len(self.windows))]
        self.outside: list[Part] = []
        if "static-data" in self.on:
            self.outside.append(P.static(self.rng("static")))
        self.bound = self._variables()
        self.bind = self._bind()
        self.filter = self._filter()
        self.predicates = frozenset(p for b in self.blocks for part in b for p in part.predicates)

    def rng(self, part: str) -> random.Random:
        return random.Random(f"{self.plan.seed}:{part}")

    def _windows(self, streams: int) -> tuple[Window, ...]:
        kinds = self.plan.kinds
        first = _window(self.rng("window1"), "w1", STREAMS[0], kinds)
        if "two-windows" not in self.on:
            return (first,)
        rng = self.rng("window2")
        stream = STREAMS[1] if streams > 1 and rng.random() < 0.5 else STREAMS[0]
        return (first, _window(rng, "w2", stream, kinds))

    def _block(self, k: int) -> list[Part]:
        suffix = str(k + 1)
        parts = [P.base(self.rng(f"base{suffix}"), suffix, self.plan.size)]
        if k > 0:
            return parts
        if "optional" in self.on:
            rng = self.rng("optional")
            parts.append(P.optional(rng, suffix, "filter" in self.on and rng.random() < 0.3))
        if "union" in self.on:
            parts.append(P.union(self.rng("union"), suffix))
        if "minus" in self.on:
            parts.append(P.minus(self.rng("minus")))
        return parts

    def _variables(self) -> dict[str, Var]:
        out: dict[str, Var] = {}
        for part in [p for b in self.blocks for p in b] + self.outside:
            for var in part.binds:
                out.setdefault(var.name, var)
        return out

    def _bind(self) -> tuple[str, Var] | None:
        if "bind" not in self.on:
            return None
        rng = self.rng("bind")
        source = rng.choice(sorted(self.bound.values(), key=str))
        expr, kind = P.expression(rng, source)
        return expr, Var("b", kind, maybe=True)

    def _filter(self) -> tuple[str, bool] | None:
        """The condition, and whether it goes inside the first window."""
        if "filter" not in self.on:
            return None
        rng = self.rng("filter")
        pool = sorted(self.bound.values(), key=str) + ([self.bind[1]] if self.bind else [])
        var = rng.choice(pool)
        first = {v.name for part in self.blocks[0] for v in part.binds}
        inside = var.name in first and rng.random() < 0.5
        return P.condition(rng, var, self.plan.size), inside

    # -- the text ---------------------------------------------------------

    def text(self) -> str:
        select, tail = self._select()
        lines = [f"PREFIX : <{EX}>", f"PREFIX xsd: <{XSD}>"]
        lines.append(f"REGISTER {self.plan.r2s} :out AS")
        lines.append(select)
        for w in self.windows:
            lines.append(f"FROM NAMED WINDOW :{w.name} ON STREAM <{w.stream}> [{w.body}]")
        lines.append("WHERE {")
        for k, block in enumerate(self.blocks):
            body = " ".join(part.text for part in block)
            if self.filter and self.filter[1] and k == 0:
                body += f" FILTER({self.filter[0]})"
            lines.append(f"  WINDOW :{self.windows[k].name} {{ {body} }}")
        lines.extend(f"  {part.text}" for part in self.outside)
        if self.bind:
            lines.append(f"  BIND({self.bind[0]} AS {self.bind[1]})")
        if self.filter and not self.filter[1]:
            lines.append(f"  FILTER({self.filter[0]})")
        lines.append("}")
        lines.extend(tail)
        return "\n".join(lines) + "\n"

    def _select(self) -> tuple[str, list[str]]:
        """The SELECT line and what follows WHERE (GROUP BY, ORDER BY, LIMIT)."""
        variables = sorted(
            {**self.bound, **({"b": self.bind[1]} if self.bind else {})}.values(), key=str
        )
        if "limit" in self.on:
            # Only what SPARQL orders totally is projected (else no LIMIT at all).
            variables = [v for v in variables if v.kind in ORDERABLE] or variables
        if "aggregates" in self.on:
            shown, projected, tail = _aggregate(self.rng("aggregates"), variables)
        else:
            rng = self.rng("select")
            projected = rng.sample(variables, rng.randint(1, min(4, len(variables))))
            shown, tail = " ".join(map(str, projected)), []
        distinct = "DISTINCT " if "distinct" in self.on else ""
        tail += _order(self.rng("order"), projected, self.on)
        return f"SELECT {distinct}{shown}", tail


def _window(rng: random.Random, name: str, stream: str, kinds: tuple[str, ...]) -> Window:
    """A time window: tumbling, hopping (the width a multiple of the slide, or
    not) or sampling; or, when ``kinds`` has them, a count or session window."""
    kind = "time" if len(kinds) == 1 or rng.random() < 0.5 else rng.choice(kinds)
    if kind in ("rows", "triples"):
        size = rng.randint(1, 4)
        return Window(name, stream, size, rng.randint(1, size), kind)
    if kind == "session":
        return Window(name, stream, GRID * rng.choice((1, 2, 4)), 0, kind)
    slide = rng.choice(SLIDES)
    shape = rng.choices(("tumbling", "hopping", "uneven", "sampling"), (4, 4, 2, 1))[0]
    width = {
        "tumbling": slide,
        "hopping": slide * rng.randint(2, 3),
        "uneven": slide * rng.randint(1, 2) + slide // 2,
        "sampling": slide // 2,
    }[shape]
    return Window(name, stream, width, slide)


def _aggregate(rng: random.Random, pool: list[Var]) -> tuple[str, list[Var], list[str]]:
    """``?g (AGG(...) AS ?agg)`` with GROUP BY ?g, or one group without GROUP BY."""
    numbers = [v for v in pool if v.kind == "number"]
    keys = [rng.choice(pool)] if rng.random() < 0.7 else []
    forms = ["(COUNT(*) AS ?agg)", f"(COUNT(DISTINCT {rng.choice(pool)}) AS ?agg)"]
    forms.append(f"(COUNT({rng.choice(pool)}) AS ?agg)")
    if numbers:
        source = rng.choice(numbers)
        forms += [f"({f}({source}) AS ?agg)" for f in ("SUM", "AVG", "MIN", "MAX")]
    aggregate = rng.choice(forms)
    shown = " ".join([*map(str, keys), aggregate])
    tail = [f"GROUP BY {' '.join(map(str, keys))}"] if keys else []
    return shown, [*keys, Var("agg", "number", maybe=True)], tail


def _order(rng: random.Random, projected: list[Var], on: frozenset[str]) -> list[str]:
    """ORDER BY (and LIMIT, only over a total order of what is projected)."""
    if "order-by" not in on or not projected:
        return []
    limit = "limit" in on and all(v.kind in ORDERABLE for v in projected)
    keys = projected if limit else rng.sample(projected, rng.randint(1, len(projected)))
    terms = []
    for var in keys:
        key = f"DESC({var})" if rng.random() < 0.3 else str(var)
        terms.append(key + (f" STR({var})" if limit and var.kind == "number" else ""))
    out = ["ORDER BY " + " ".join(terms)]
    if limit:
        offset = f" OFFSET {rng.randint(1, 2)}" if rng.random() < 0.2 else ""
        out.append(f"LIMIT {rng.randint(1, 3)}{offset}")
    return out
