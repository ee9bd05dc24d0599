"""Application timestamps written as RDF literals, turned into integer ms.

Two spellings are accepted wherever a stream file carries a timestamp:

- an integer number of milliseconds: a plain literal ``"1000"`` or one typed
  with an XSD integer type (``xsd:integer``, ``xsd:long``, ...);
- an ``xsd:dateTime`` (or ``xsd:dateTimeStamp``), converted to milliseconds
  since 1970-01-01T00:00:00Z. A value without a time zone is taken as UTC;
  digits below the millisecond are dropped (truncated towards the past).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from pytest_rspbench.rsp.terms import XSD

INTEGER_TYPES = frozenset(
    XSD + name
    for name in (
        "integer long int short byte nonNegativeInteger positiveInteger "
        "nonPositiveInteger negativeInteger unsignedLong unsignedInt "
        "unsignedShort unsignedByte"
    ).split()
)
# A plain literal "1000" is an xsd:string; it means milliseconds too.
_MS_TYPES = INTEGER_TYPES | {XSD + "string"}
DATETIME_TYPES = frozenset({XSD + "dateTime", XSD + "dateTimeStamp"})

# At most 19 digits: a Java long, and far below int()'s digit limit.
_INTEGER = re.compile(r"[+-]?[0-9]{1,19}")
_DATETIME = re.compile(
    r"(?P<y>-?[0-9]{4,})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})"
    r"T(?P<h>[0-9]{2}):(?P<mi>[0-9]{2}):(?P<s>[0-9]{2})(?:\.(?P<f>[0-9]+))?"
    r"(?P<tz>Z|[+-][0-9]{2}:[0-9]{2})?"
)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

EXPECTED = 'an integer timestamp in ms (e.g. "1000") or an xsd:dateTime literal'


def millis(lexical: str, datatype: str | None) -> int:
    """Milliseconds for a timestamp literal; ValueError says what was expected.

    >>> millis("1000", None)
    1000
    >>> millis("1970-01-01T00:00:01.5Z", XSD + "dateTime")
    1500
    """
    if datatype is None or datatype in _MS_TYPES:
        if _INTEGER.fullmatch(lexical):
            return int(lexical)
    elif datatype in DATETIME_TYPES:
        return _datetime_millis(lexical)
    raise ValueError(f"expected {EXPECTED}, found {lexical!r}")


def _datetime_millis(lexical: str) -> int:
    match = _DATETIME.fullmatch(lexical)
    try:
        if match is None:
            raise ValueError
        hour = int(match["h"])
        # XSD allows 24:00:00 for the end of a day, Python does not.
        extra = timedelta(days=1) if hour == 24 else timedelta(0)
        if hour == 24 and (match["mi"], match["s"], match["f"] or "0") != (
            "00",
            "00",
            "0",
        ):
            raise ValueError
        value = datetime(
            int(match["y"]),
            int(match["mo"]),
            int(match["d"]),
            hour % 24,
            int(match["mi"]),
            int(match["s"]),
            tzinfo=_zone(match["tz"]),
        )
    except (ValueError, OverflowError):
        raise ValueError(f"expected an xsd:dateTime, found {lexical!r}") from None
    fraction = int((match["f"] or "0")[:3].ljust(3, "0"))
    return (value + extra - _EPOCH) // timedelta(milliseconds=1) + fraction


def _zone(text: str | None) -> timezone:
    if text is None or text == "Z":
        return timezone.utc
    sign = -1 if text[0] == "-" else 1
    hours, minutes = int(text[1:3]), int(text[4:6])
    if hours > 14 or minutes > 59:
        raise ValueError
    return timezone(sign * timedelta(hours=hours, minutes=minutes))
