"""YABench's stream generator SG1 (``yabench-sg1``), reproduced exactly.

Weather stations report air temperature (YABench §3.2, the LinkedSensorData
vocabulary of SRBench/CSRBench). Same parameters and seed give the same
stream as YABench's Java generator, observation for observation; written with
``write_lines(events, fp, "n3t")`` it is YABench's ``.n3t`` file byte for byte.

The schedule, as YABench runs it:

1. station ``i`` (``0 <= i < stations``, in id order) draws its phase
   ``nextInt(interval)``; the stations are stable-sorted by phase into a queue;
2. ``t = 0`` (so the very first observation is stamped 0, whatever its
   station's phase);
3. while ``t <= duration``: take the first station, draw
   ``value = nextInt(max_temp - min_temp) + min_temp``, emit its observation
   at ``t``, add ``interval`` to the station's next time, move it to the back
   of the queue, and set ``t`` to the next time of the new first station.

Step 3 is a plain queue, not a priority queue; it stays sorted because every
phase is below ``interval``. Each observation is seven triples (see
:func:`_observation`), the value written like Java's ``%.1f`` of a float.
"""

from __future__ import annotations

import struct
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from pytest_rspbench.stream import parameters as check
from pytest_rspbench.stream.javarandom import ADDEND, MASK, MULTIPLIER, JavaRandom
from pytest_rspbench.stream.model import Event, Triple
from pytest_rspbench.stream.parameters import MAX_TIME, ParameterError

SSW = "http://knoesis.wright.edu/ssw/"
OM_OWL = "http://knoesis.wright.edu/ssw/ont/sensor-observation.owl#"
WEATHER = "http://knoesis.wright.edu/ssw/ont/weather.owl#"
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
XSD_FLOAT = "http://www.w3.org/2001/XMLSchema#float"

_JAVA_INT = 1 << 31
MAX_STATIONS = 1_000_000
"""The most stations: each is held in memory (about 500 MB for the most)."""


@dataclass(frozen=True)
class SG1Config:
    """SG1's parameters (YABench's ``gen(s, i, d, r, n)``), times in ms."""

    stations: int = 10
    interval: int = 300_000
    duration: int = 3_600_000
    seed: int = 0
    min_temp: int = 0
    max_temp: int = 100

    def __post_init__(self) -> None:
        # These are Java ints in YABench; a station list is held in memory.
        check.integer("yabench-sg1", "stations", self.stations, 1, MAX_STATIONS)
        check.integer("yabench-sg1", "interval", self.interval, 1, _JAVA_INT - 1, "ms")
        check.integer("yabench-sg1", "duration", self.duration, 0, MAX_TIME, "ms")
        check.seed("yabench-sg1", self.seed)
        for name in ("min_temp", "max_temp"):
            value = getattr(self, name)
            check.integer("yabench-sg1", name, value, -_JAVA_INT, _JAVA_INT - 1)
        if not 0 < self.max_temp - self.min_temp < _JAVA_INT:
            raise ParameterError(
                "yabench-sg1",
                "max_temp",
                "expected min_temp < max_temp (Java ints, less than 2^31 apart), "
                f"got {self.min_temp} and {self.max_temp}.",
                "make max_temp greater than min_temp.",
            )
        check.records(
            "yabench-sg1",
            "stations",
            self.stations * (self.duration // self.interval + 1),
            "lower stations or duration, or raise interval.",
        )


def sg1_events(config: SG1Config) -> Iterator[Event]:
    """The SG1 stream; observations stamped with the same ms form one event.

    >>> first = next(sg1_events(SG1Config(stations=2, interval=1000, duration=0)))
    >>> first.time, len(first.triples)
    (0, 7)
    """
    batch: list[Triple] = []
    current = 0
    for time, triples in sg1_observations(config):
        if time != current and batch:
            yield Event(current, tuple(batch))
            batch = []
        current = time
        batch.extend(triples)
    if batch:
        yield Event(current, tuple(batch))


def sg1_observations(config: SG1Config) -> Iterator[tuple[int, tuple[Triple, ...]]]:
    """``(time, seven triples)`` per observation, in YABench's order."""
    random = JavaRandom(config.seed)
    queue = deque(
        sorted(
            ([random.next_int(config.interval), i] for i in range(config.stations)),
            key=lambda station: station[0],  # stable, like Collections.sort
        )
    )
    make = _Observation(config)
    # The value draw is nextInt(bound) inlined: Random.next(31) on the LCG.
    bound = config.max_temp - config.min_temp
    power_of_two = bound & (bound - 1) == 0
    seed = random.seed
    interval, duration, t = config.interval, config.duration, 0
    while t <= duration:
        station = queue.popleft()
        while True:
            seed = (seed * MULTIPLIER + ADDEND) & MASK
            bits = seed >> 17
            if power_of_two:
                value = (bound * bits) >> 31
                break
            value = bits % bound
            if bits - value + bound - 1 < _JAVA_INT:
                break
        yield t, make(station[1], t, value)
        station[0] += interval
        queue.append(station)
        t = queue[0][0]


class _Observation:
    """Builds one observation's seven triples from precomputed string pieces."""

    def __init__(self, config: SG1Config) -> None:
        self.min_temp = config.min_temp
        self.values: dict[int, str] = {}
        self.obs = [f"<{SSW}Observation_AirTemperature_A{i}_" for i in range(config.stations)]
        self.data = [f"<{SSW}MeasureData_AirTemperature_A{i}_" for i in range(config.stations)]
        self.system = [f"<{SSW}System_A{i}>" for i in range(config.stations)]

    def __call__(self, station: int, time: int, draw: int) -> tuple[Triple, ...]:
        stamp = f"{time}>"
        obs = self.obs[station] + stamp
        data = self.data[station] + stamp
        value = self.values.get(draw)
        if value is None:
            value = self.values[draw] = _float_literal(draw + self.min_temp)
        return (
            (obs, RDF_TYPE, _TEMPERATURE_OBSERVATION),
            (obs, _OBSERVED_PROPERTY, _AIR_TEMPERATURE),
            (obs, _PROCEDURE, self.system[station]),
            (obs, _RESULT, data),
            (data, RDF_TYPE, _MEASURE_DATA),
            (data, _FLOAT_VALUE, value),
            (data, _UOM, _FAHRENHEIT),
        )


def _float_literal(value: int) -> str:
    # Java stores the int in a float, then formats it with "%.1f".
    as_float = struct.unpack("<f", struct.pack("<f", value))[0]
    return f'"{as_float:.1f}"^^<{XSD_FLOAT}>'


_TEMPERATURE_OBSERVATION = f"<{WEATHER}TemperatureObservation>"
_OBSERVED_PROPERTY = f"<{OM_OWL}observedProperty>"
_AIR_TEMPERATURE = f"<{WEATHER}_AirTemperature>"
_PROCEDURE = f"<{OM_OWL}procedure>"
_RESULT = f"<{OM_OWL}result>"
_MEASURE_DATA = f"<{OM_OWL}MeasureData>"
_FLOAT_VALUE = f"<{OM_OWL}floatValue>"
_UOM = f"<{OM_OWL}uom>"
_FAHRENHEIT = f"<{WEATHER}fahrenheit>"
