"""``lsbench-social``: a seeded social-network stream in the style of LSBench.

LSBench (Le-Phuoc et al., "Linked Stream Data Processing Engines: Facts and
Figures", §2) streams a social network's activity next to its static data.
This generator follows the ideas of its S2Gen, not its code, so it does not
reproduce LSBench's published files; it reproduces itself: same
:class:`LSBenchConfig`, same stream (on one platform: the draws go through
``math.log``).

Static data (§2.1 "Static data", :func:`lsbench_static`): users with a profile
(name, birthday, home city, interests), ``foaf:knows`` between them (a new
friend lives in the same city with probability ``same_city``; degrees are
skewed), one forum per user with the friends as subscribers, and social events
per city.

Streams (§2.1 "Stream data"), each user acting as a Poisson process whose
rate is scaled by a Pareto-distributed activity level (the skew of §2.2):

- ``gps``: positions near the home city, or near an event the user attends
  while it runs (people at one event send nearby coordinates, §2.2);
- ``pc``: posts in the user's forum, tagged from the user's interests, and
  comments replying to a recent post of a friend;
- ``plike``: likes of a friend's recent post;
- ``fo``: photos, with user tags of friends (``S_fotags``);
- ``folike``: likes of a friend's recent photo.

All streams come from one schedule, so choosing a subset filters the same
activity: a like always refers to a post of the ``pc`` stream.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from pytest_rspbench.stream import parameters as check
from pytest_rspbench.stream.model import Event, Triple
from pytest_rspbench.stream.parameters import MAX_TIME, ParameterError

BASE = "http://www.ins.cwi.nl/sib/"
SIB, SIOC = BASE + "vocabulary/", "http://rdfs.org/sioc/ns#"
FOAF, GEO = "http://xmlns.com/foaf/0.1/", "http://www.w3.org/2003/01/geo/wgs84_pos#"
XSD = "http://www.w3.org/2001/XMLSchema#"
A = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
STREAMS = ("gps", "pc", "plike", "fo", "folike")
CITIES = [
    ("Galway", 53.27, -9.05),
    ("Vienna", 48.21, 16.37),
    ("Amsterdam", 52.37, 4.90),
    ("Berlin", 52.52, 13.40),
    ("Dublin", 53.35, -6.26),
    ("Paris", 48.86, 2.35),
    ("Madrid", 40.42, -3.70),
    ("Rome", 41.90, 12.50),
]
TAGS = "rdf sparql stream music football travel food cinema science books art".split()
WORDS = "the a window query stream engine graph data time join filter result".split()
NAMES = "Ada Bo Cai Dana Eli Femi Gus Hana Ivo Jun Kai Lea Mo Nia Oto Pia".split()
_RECENT = 20  # posts and photos a user remembers for comments and likes


@dataclass(frozen=True)
class LSBenchConfig:
    """Parameters; rates are per user per minute before the activity skew."""

    users: int = 100
    duration: int = 60_000
    seed: int = 0
    streams: tuple[str, ...] = STREAMS
    gps_per_minute: float = 6.0
    posts_per_minute: float = 0.5
    comments_per_minute: float = 1.0
    likes_per_minute: float = 2.0
    photos_per_minute: float = 0.2
    photo_likes_per_minute: float = 0.5
    friends: int = 10
    same_city: float = 0.8
    skew: float = 1.5
    events_per_city: int = 2

    def __post_init__(self) -> None:
        if isinstance(self.streams, (str, list)):
            names = [self.streams] if isinstance(self.streams, str) else self.streams
            object.__setattr__(self, "streams", tuple(names))
        if (
            not isinstance(self.streams, tuple)
            or not all(isinstance(s, str) and s in STREAMS for s in self.streams)
            or not self.streams
        ):
            raise ParameterError(
                "lsbench-social",
                "streams",
                f"expected streams among {list(STREAMS)}, found {self.streams!r}.",
                f"list one or more of: {', '.join(STREAMS)}.",
            )
        for name, (low, high) in _INTEGERS.items():
            check.integer("lsbench-social", name, getattr(self, name), low, high)
        check.seed("lsbench-social", self.seed)
        for name in _RATES:
            value = getattr(self, name)
            check.number("lsbench-social", name, value, 0, MAX_PER_MINUTE, "per user")
        check.number("lsbench-social", "same_city", self.same_city, 0, 1, "a fraction")
        check.number("lsbench-social", "skew", self.skew, 1, MAX_SKEW, above_low=True)
        # The activity levels average 1, so this is the expected stream size.
        per_minute = sum(getattr(self, name) for name in _RATES)
        check.records(
            "lsbench-social",
            "users",
            self.users * per_minute * self.duration / 60_000,
            "lower users, duration (ms) or the *_per_minute rates.",
        )


_INTEGERS = {
    "users": (1, 1_000_000),
    "duration": (0, MAX_TIME),
    "friends": (0, 1_000_000),
    "events_per_city": (0, 10_000),
}
_RATES = (
    "gps_per_minute",
    "posts_per_minute",
    "comments_per_minute",
    "likes_per_minute",
    "photos_per_minute",
    "photo_likes_per_minute",
)
MAX_PER_MINUTE = 1_000_000
"""The highest rate of one kind of action, per user per minute."""
MAX_SKEW = 1000
"""The highest ``skew`` (the Pareto shape of activity levels; > 1)."""


@dataclass
class _User:
    id: int
    city: int
    level: float
    interests: list[str]
    friends: list[int] = field(default_factory=list)
    posts: deque[str] = field(default_factory=lambda: deque(maxlen=_RECENT))
    photos: deque[str] = field(default_factory=lambda: deque(maxlen=_RECENT))


@dataclass(frozen=True)
class _SocialEvent:
    iri: str
    lat: float
    long: float
    start: int
    end: int
    attendees: frozenset[int]


class _World:
    """The static social network, built once from the seed."""

    def __init__(self, config: LSBenchConfig, draw: random.Random) -> None:
        self.draw = draw.random
        weights = [1 / (i + 1) for i in range(len(CITIES))]  # Zipf-skewed cities
        self.users = [self._user(i, weights, config.skew) for i in range(config.users)]
        self._connect(config)
        self.events = [
            self._event(c, k, config)
            for c in range(len(CITIES))
            for k in range(config.events_per_city)
        ]

    def pick(self, n: int) -> int:
        return min(int(self.draw() * n), n - 1)

    def _user(self, i: int, weights: list[float], skew: float) -> _User:
        point, city = self.draw() * sum(weights), 0
        while point >= weights[city] and city < len(weights) - 1:
            point -= weights[city]
            city += 1
        level = (1 - self.draw()) ** (-1 / skew) * (skew - 1) / skew  # mean 1
        tags = {TAGS[(city + self.pick(4)) % len(TAGS)] for _ in range(1 + self.pick(3))}
        return _User(i, city, min(level, 50.0), sorted(tags))

    def _connect(self, config: LSBenchConfig) -> None:
        by_city: dict[int, list[int]] = {}
        for user in self.users:
            by_city.setdefault(user.city, []).append(user.id)
        for user in self.users:
            wanted = min(round(config.friends * user.level), len(self.users) - 1)
            for _ in range(3 * wanted):  # bounded attempts
                if len(user.friends) >= wanted:
                    break
                pool = by_city[user.city] if self.draw() < config.same_city else None
                other = pool[self.pick(len(pool))] if pool else self.pick(len(self.users))
                if other != user.id and other not in user.friends:
                    user.friends.append(other)
                    self.users[other].friends.append(user.id)

    def _event(self, city: int, k: int, config: LSBenchConfig) -> _SocialEvent:
        _, lat, long = CITIES[city]
        start = int(self.draw() * config.duration)
        length = int(config.duration * (0.05 + 0.25 * self.draw()))
        guests = frozenset(u.id for u in self.users if u.city == city and self.draw() < 0.3)
        return _SocialEvent(
            f"<{BASE}event/e{city}_{k}>",
            lat + (self.draw() - 0.5) / 20,
            long + (self.draw() - 0.5) / 20,
            start,
            start + length,
            guests,
        )


def lsbench_static(config: LSBenchConfig) -> Iterator[Triple]:
    """The static data ``U_data``: profiles, knows, forums, events."""
    world = _World(config, random.Random(config.seed))
    for user in world.users:
        u, name = _user(user.id), NAMES[user.id % len(NAMES)]
        yield u, A, f"<{SIOC}User>"
        yield u, f"<{FOAF}name>", f'"{name} {user.id}"'
        yield u, f"<{FOAF}based_near>", f"<{BASE}city/{CITIES[user.city][0]}>"
        yield u, f"<{SIB}birthday>", f'"{1960 + user.id % 40}-01-01"^^<{XSD}date>'
        for tag in user.interests:
            yield u, f"<{SIB}interest>", f"<{BASE}tag/{tag}>"
        yield _forum(user.id), f"<{SIOC}has_moderator>", u
        for friend in user.friends:
            yield u, f"<{FOAF}knows>", _user(friend)
            yield _forum(user.id), f"<{SIOC}has_subscriber>", _user(friend)
    for event in world.events:
        yield event.iri, A, f"<{SIB}Event>"
        yield event.iri, f"<{GEO}lat>", _double(event.lat)
        yield event.iri, f"<{GEO}long>", _double(event.long)
        for guest in sorted(event.attendees):
            yield _user(guest), f"<{SIB}attends>", event.iri


def lsbench_events(config: LSBenchConfig) -> Iterator[Event]:
    """The chosen streams, merged in time order; equal times form one event."""
    draw = random.Random(config.seed)
    world = _World(config, draw)
    activity = _Activity(world, set(config.streams))
    per_minute = [
        config.gps_per_minute,
        config.posts_per_minute,
        config.comments_per_minute,
        config.likes_per_minute,
        config.photos_per_minute,
        config.photo_likes_per_minute,
    ]
    # Events per ms for each (user, kind); GPS devices send regardless of skew.
    rates = [
        [rate / 60_000 * (1.0 if kind == 0 else user.level) for kind, rate in enumerate(per_minute)]
        for user in world.users
    ]
    queue = [
        (_wait(draw.random(), rate), user, kind)
        for user, row in enumerate(rates)
        for kind, rate in enumerate(row)
        if rate > 0
    ]
    heapq.heapify(queue)
    batch: list[Triple] = []
    current = 0
    while queue and queue[0][0] <= config.duration:
        moment, user, kind = queue[0]
        wait = _wait(draw.random(), rates[user][kind])
        heapq.heapreplace(queue, (moment + wait, user, kind))
        time = int(moment)
        triples = activity.run(kind, world.users[user], time)
        if time != current and batch:
            yield Event(current, tuple(batch))
            batch = []
        current = time
        batch.extend(triples)
    if batch:
        yield Event(current, tuple(batch))


class _Activity:
    """One user action as triples; counters make every IRI unique."""

    def __init__(self, world: _World, streams: set[str]) -> None:
        self.world, self.streams, self.count = world, streams, 0

    def run(self, kind: int, user: _User, time: int) -> list[Triple]:
        self.count += 1
        action = (
            self.gps,
            self.post,
            self.comment,
            self.like_post,
            self.photo,
            self.like_photo,
        )[kind]
        stream, triples = action(user, time)
        return triples if stream in self.streams else []

    def friend(self, user: _User) -> _User | None:
        if not user.friends:
            return None
        return self.world.users[user.friends[self.world.pick(len(user.friends))]]

    def gps(self, user: _User, time: int) -> tuple[str, list[Triple]]:
        _, lat, long = CITIES[user.city]
        spread = 0.02
        for event in self.world.events:
            if user.id in event.attendees and event.start <= time < event.end:
                lat, long, spread = event.lat, event.long, 0.002
        point = f"<{BASE}gps/g{self.count}>"
        draw = self.world.draw
        return "gps", [
            (_user(user.id), f"<{SIB}gps>", point),
            (point, f"<{GEO}lat>", _double(lat + (draw() - 0.5) * spread)),
            (point, f"<{GEO}long>", _double(long + (draw() - 0.5) * spread)),
        ]

    def post(self, user: _User, time: int) -> tuple[str, list[Triple]]:
        post = f"<{BASE}post/p{self.count}>"
        user.posts.append(post)
        tag = user.interests[self.world.pick(len(user.interests))]
        return "pc", [
            (post, A, f"<{SIOC}Post>"),
            (post, f"<{SIOC}has_creator>", _user(user.id)),
            (_forum(user.id), f"<{SIOC}container_of>", post),
            (post, f"<{SIB}hashtag>", f"<{BASE}tag/{tag}>"),
            (post, f"<{SIOC}content>", self.text()),
        ]

    def comment(self, user: _User, time: int) -> tuple[str, list[Triple]]:
        friend = self.friend(user)
        if friend is None or not friend.posts:
            return "pc", []
        target = friend.posts[self.world.pick(len(friend.posts))]
        comment = f"<{BASE}comment/c{self.count}>"
        return "pc", [
            (comment, A, f"<{SIOC}Post>"),
            (comment, f"<{SIOC}reply_of>", target),
            (comment, f"<{SIOC}has_creator>", _user(user.id)),
            (comment, f"<{SIOC}content>", self.text()),
        ]

    def like_post(self, user: _User, time: int) -> tuple[str, list[Triple]]:
        friend = self.friend(user)
        if friend is None or not friend.posts:
            return "plike", []
        target = friend.posts[self.world.pick(len(friend.posts))]
        return "plike", [(_user(user.id), f"<{SIB}like>", target)]

    def photo(self, user: _User, time: int) -> tuple[str, list[Triple]]:
        photo = f"<{BASE}photo/f{self.count}>"
        user.photos.append(photo)
        triples = [
            (photo, A, f"<{SIB}Photo>"),
            (photo, f"<{SIOC}has_creator>", _user(user.id)),
        ]
        for _ in range(self.world.pick(4)):  # tags are friends: correlated with knows
            friend = self.friend(user)
            if friend is not None:
                triples.append((photo, f"<{SIB}usertag>", _user(friend.id)))
        return "fo", triples

    def like_photo(self, user: _User, time: int) -> tuple[str, list[Triple]]:
        friend = self.friend(user)
        if friend is None or not friend.photos:
            return "folike", []
        target = friend.photos[self.world.pick(len(friend.photos))]
        return "folike", [(_user(user.id), f"<{SIB}like>", target)]

    def text(self) -> str:
        words = [WORDS[self.world.pick(len(WORDS))] for _ in range(3 + self.world.pick(6))]
        return f'"{" ".join(words)}"'


def _wait(uniform: float, per_ms: float) -> float:
    """An exponential waiting time (ms) with rate ``per_ms``, from one uniform draw."""
    return -math.log(1.0 - uniform) / per_ms


def _user(i: int) -> str:
    return f"<{BASE}user/u{i}>"


def _forum(i: int) -> str:
    return f"<{BASE}forum/f{i}>"


def _double(value: float) -> str:
    return f'"{value:.6f}"^^<{XSD}double>'
