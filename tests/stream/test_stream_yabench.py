"""yabench-sg1 and java.util.Random, checked against values derived independently.

The expected values come from three places that share no code with the module
under test: a second, deliberately literal java.util.Random written below from
the Java API documentation, numbers pinned from running Java 17, and (when a
JDK is installed) a Java program, SG1Check.java, run on the spot.
"""

from __future__ import annotations

import io
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from pytest_rspbench.errors import StreamError
from pytest_rspbench.stream.javarandom import JavaRandom
from pytest_rspbench.stream.lines import write_lines
from pytest_rspbench.stream.yabench import SG1Config, sg1_events

HERE = Path(__file__).parent
SSW = "http://knoesis.wright.edu/ssw/"
OM = "http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#"
WEATHER = "http://knoesis.wright.edu/ssw/ont/weather.owl#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - 0x1_0000_0000 if value & 0x8000_0000 else value


class LiteralRandom:
    """java.util.Random as its documentation spells it, int arithmetic and all."""

    def __init__(self, seed: int):
        self.seed = (seed ^ 0x5DEECE66D) & ((1 << 48) - 1)

    def next(self, bits: int) -> int:
        self.seed = (self.seed * 0x5DEECE66D + 0xB) & ((1 << 48) - 1)
        return int32(self.seed >> (48 - bits))

    def next_int(self, bound: int) -> int:
        if (bound & -bound) == bound:  # i.e., bound is a power of 2
            return int32((bound * self.next(31)) >> 31)
        while True:
            bits = self.next(31)
            val = bits % bound
            if int32(bits - val + (bound - 1)) >= 0:
                return val


def literal_sg1(
    stations: int,
    interval: int,
    duration: int,
    seed: int,
    low: int = 0,
    high: int = 100,
) -> list[tuple[int, int, int]]:
    """(station, time, value) per observation, following the schedule word by word."""
    random = LiteralRandom(seed)
    queue = [[random.next_int(interval), i] for i in range(stations)]
    queue.sort(key=lambda s: s[0])  # Python's sort is stable, like Collections.sort
    out, t = [], 0
    while t <= duration:
        station = queue.pop(0)
        out.append((station[1], t, random.next_int(high - low) + low))
        station[0] += interval
        queue.append(station)
        t = queue[0][0]
    return out


def observations(config: SG1Config) -> list[tuple[int, int, float]]:
    found = []
    for event in sg1_events(config):
        for s, p, o in event.triples:
            if p == f"<{OM}floatValue>":
                station = int(s.rsplit("_A", 1)[1].split("_")[0])
                found.append((station, event.time, float(o.split('"')[1])))
    return found


def n3t(config: SG1Config) -> str:
    out = io.StringIO()
    write_lines(sg1_events(config), out, "n3t")
    return out.getvalue()


# Java 17: new Random(42) then nextInt(10) five times; new Random(-7) then
# nextInt(1000) x5, nextInt(1 << 30), nextInt(Integer.MAX_VALUE), nextInt(2^30 + 1).
JAVA_42 = [0, 3, 8, 4, 0]
JAVA_MINUS_7 = [662, 297, 590, 707, 478, 157223543, 1829394591, 677675436]


@pytest.mark.parametrize("random_class", [JavaRandom, LiteralRandom])
def test_java_random_matches_pinned_java_output(random_class: type) -> None:
    r = random_class(42)
    assert [r.next_int(10) for _ in range(5)] == JAVA_42
    q = random_class(-7)
    drawn = [q.next_int(1000) for _ in range(5)]
    drawn += [q.next_int(1 << 30), q.next_int(2**31 - 1), q.next_int((1 << 30) + 1)]
    assert drawn == JAVA_MINUS_7


@pytest.mark.parametrize("seed", [0, 1, -1, 2**63 - 1, -(2**63), 0x5DEECE66D])
@pytest.mark.parametrize("bound", [1, 2, 7, 100, 1 << 20, 2**31 - 1, 3 * 2**29])
def test_java_random_agrees_with_literal_version(seed: int, bound: int) -> None:
    fast, slow = JavaRandom(seed), LiteralRandom(seed)
    assert [fast.next_int(bound) for _ in range(50)] == [slow.next_int(bound) for _ in range(50)]


def test_java_random_rejects_what_java_rejects() -> None:
    with pytest.raises(ValueError):
        JavaRandom(0).next_int(0)
    with pytest.raises(ValueError):
        JavaRandom(2**63)


# seed 100, 3 stations, interval 1000 ms, duration 3000 ms (from Java 17):
# phases A0=915, A1=250, A2=874; A1 goes first and is stamped 0.
GOLDEN = [
    (1, 0, 88), (2, 874, 91), (0, 915, 66), (1, 1250, 36), (2, 1874, 88),
    (0, 1915, 23), (1, 2250, 13), (2, 2874, 22), (0, 2915, 17),
]  # fmt: skip
GOLDEN_CONFIG = SG1Config(stations=3, interval=1000, duration=3000, seed=100)


def test_golden_observations() -> None:
    assert literal_sg1(3, 1000, 3000, 100) == GOLDEN
    assert observations(GOLDEN_CONFIG) == GOLDEN


def test_golden_first_lines() -> None:
    obs, data = (
        f"<{SSW}Observation_AirTemperature_A1_0>",
        f"<{SSW}MeasureData_AirTemperature_A1_0>",
    )
    assert n3t(GOLDEN_CONFIG).splitlines()[:8] == [
        f'{obs} <{RDF_TYPE}> <{WEATHER}TemperatureObservation> "0" .',
        f'{obs} <{OM}observedProperty> <{WEATHER}_AirTemperature> "0" .',
        f'{obs} <{OM}procedure> <{SSW}System_A1> "0" .',
        f'{obs} <{OM}result> {data} "0" .',
        f'{data} <{RDF_TYPE}> <{OM}MeasureData> "0" .',
        f'{data} <{OM}floatValue> 88.0^^<http://www.w3.org/2001/XMLSchema#float> "0" .',
        f'{data} <{OM}uom> <{WEATHER}fahrenheit> "0" .',
        f"<{SSW}Observation_AirTemperature_A2_874> <{RDF_TYPE}> "
        f'<{WEATHER}TemperatureObservation> "874" .',
    ]


def test_events_group_observations_with_the_same_time() -> None:
    config = SG1Config(stations=200, interval=100, duration=1000, seed=5)
    events = list(sg1_events(config))
    assert sum(len(e.triples) for e in events) == 7 * len(observations(config))
    assert len({e.time for e in events}) == len(events)
    assert [e.time for e in events] == sorted(e.time for e in events)


@pytest.mark.parametrize(
    "args",
    [
        (1, 1000, 0, 7, 0, 100),  # a single observation
        (50, 1000, 20_000, -123456789012, -40, 60),
        (7, 333, 5000, 2**40, 0, 64),  # power-of-two bound: Java's shortcut
        (5, 1 << 30, 1 << 31, 9, 16_777_200, 16_777_300),  # ints a float rounds
        (20, 10, 500, 0x5DEECE66D, -(2**30), 2**30 - 1),  # widest bound: 2^31 - 1
    ],
)
def test_agrees_with_literal_schedule(args: tuple[int, ...]) -> None:
    stations, interval, duration, seed, low, high = args
    config = SG1Config(stations, interval, duration, seed, low, high)
    expected = literal_sg1(stations, interval, duration, seed, low, high)
    # Java keeps the value in a float: large ints round to 24 significant bits.
    rounded = [(s, t, struct.unpack("f", struct.pack("f", v))[0]) for s, t, v in expected]
    assert observations(config) == rounded


@pytest.mark.skipif(shutil.which("java") is None, reason="needs a JDK (java)")
def test_byte_identical_to_java() -> None:
    configs = [
        (3, 1000, 3000, 100, 0, 100),
        (50, 1000, 20_000, -123456789012, -40, 60),
        (7, 333, 5000, 2**40, 0, 64),
        (5, 1 << 30, 1 << 31, 9, 16_777_200, 16_777_300),
        (20, 10, 500, 0x5DEECE66D, -(2**30), 2**30 - 1),
    ]
    args = [str(a) for config in configs for a in config]
    done = subprocess.run(
        ["java", str(HERE / "SG1Check.java"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    java = done.stdout.split("#END\n")[:-1]
    assert java == [n3t(SG1Config(*config)) for config in configs]


def test_same_seed_same_bytes_other_seed_other_stream() -> None:
    config = SG1Config(stations=10, interval=1000, duration=5000, seed=3)
    assert n3t(config) == n3t(SG1Config(stations=10, interval=1000, duration=5000, seed=3))
    assert n3t(config) != n3t(SG1Config(stations=10, interval=1000, duration=5000, seed=4))


def test_yabench_big_size() -> None:
    # YABench's big load: 10,000 stations, 1 s interval, 30 s (docs/conformance.md, "YABench").
    config = SG1Config(stations=10_000, interval=1000, duration=30_000, seed=100)
    assert sum(len(e.triples) for e in sg1_events(config)) == 7 * 300_005


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("stations", 0, "stations must be a whole number from 1 to"),
        ("interval", 0, "interval must be"),
        ("interval", 2**31, "interval must be"),
        ("duration", -1, "duration must be a whole number from 0 to"),
        ("seed", 2**63, "seed must be a whole number from -9,223,"),
        ("max_temp", 0, "expected min_temp < max_temp"),
        ("stations", 2.5, "stations must be a whole number"),
    ],
)
def test_bad_parameters(field: str, value: object, message: str) -> None:
    with pytest.raises(StreamError, match=message):
        SG1Config(**{field: value})  # type: ignore[arg-type]
