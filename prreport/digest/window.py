"""The digest's time window: an ISO week or ``--since``/``--until`` dates, as a half-open UTC range."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone

from prreport.errors import ConfigError

_WEEK = re.compile(r"^(\d{4})-?W(\d{1,2})$", re.IGNORECASE)


@dataclass(frozen=True)
class Window:
    """A half-open UTC time range ``[since, until)`` and the label files are named after."""

    label: str
    since: datetime
    until: datetime

    def contains(self, when: datetime | None) -> bool:
        """Whether a timestamp falls inside the window."""
        return when is not None and self.since <= when < self.until

    def to_json(self) -> dict[str, str]:
        """Plain JSON value."""
        return {"label": self.label, "since": iso_utc(self.since), "until": iso_utc(self.until)}


def iso_utc(dt: datetime) -> str:
    """A timestamp as ISO text in UTC with a ``Z``."""
    return dt.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def week_window(year: int, week: int) -> Window:
    """The ISO week ``year-Www`` (Monday 00:00 UTC to the next Monday)."""
    try:
        start = date.fromisocalendar(year, week, 1)
    except ValueError:
        raise ConfigError(f"--week: {year}-W{week:02d} is not an ISO week of {year}") from None
    since = datetime.combine(start, time(), timezone.utc)
    _in_range("--week", f"{year}-W{week:02d}", since)
    return Window(f"{year}-W{week:02d}", since, since + timedelta(days=7))


# Windows lie between the Unix epoch (no commit is older) and a week before the last date
# Python represents (a window's end and the search's slack must be representable too).
_EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
_LATEST = datetime(9999, 12, 20, tzinfo=timezone.utc)


def _in_range(flag: str, value: str, dt: datetime) -> None:
    if not _EARLIEST <= dt <= _LATEST:
        raise ConfigError(
            f"{flag}: {value} is outside the dates a digest covers "
            f"({_EARLIEST.date().isoformat()} to {_LATEST.date().isoformat()})"
        )


def last_full_week(now: datetime) -> Window:
    """The last ISO week that ended before ``now`` (UTC)."""
    now = now.astimezone(timezone.utc)
    previous = now.date() - timedelta(days=7)
    year, week, _ = previous.isocalendar()
    return week_window(year, week)


def _parse_bound(flag: str, value: str, end: bool) -> datetime:
    """A date (whole day; ``--until`` includes it) or an ISO timestamp (exact)."""
    text = value.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            parsed = datetime.combine(day, time(), timezone.utc)
        else:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
            parsed = parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    except ValueError:
        raise ConfigError(
            f"{flag}: expected a date like 2026-08-17 or an ISO timestamp, got {value!r}"
        ) from None
    try:
        parsed.astimezone(timezone.utc)  # a far offset can leave the representable range
    except OverflowError:
        raise ConfigError(f"{flag}: {value} is outside the dates a digest covers") from None
    _in_range(flag, value, parsed)
    return parsed + timedelta(days=1) if end and len(text) == 10 else parsed


def resolve_window(
    week: str | None = None,
    since: str | None = None,
    until: str | None = None,
    now: datetime | None = None,
) -> Window:
    """``--week 2026-W34`` or ``--since DATE --until DATE``; default the last full ISO week (UTC)."""
    if week and (since or until):
        raise ConfigError("--week and --since/--until are exclusive: give one kind of window")
    if week:
        m = _WEEK.match(week.strip())
        if not m:
            raise ConfigError(f"--week: expected an ISO week like 2026-W34, got {week!r}")
        return week_window(int(m.group(1)), int(m.group(2)))
    if since or until:
        if not (since and until):
            raise ConfigError(
                "--since and --until go together: give both dates (--until is inclusive)"
            )
        start = _parse_bound("--since", since, end=False)
        stop = _parse_bound("--until", until, end=True)
        if stop <= start:
            raise ConfigError(f"--until {until} is not after --since {since}")
        label = f"{_label_part(since, start, False)}_{_label_part(until, stop, True)}"
        return Window(label, start, stop)
    return last_full_week(now or datetime.now(timezone.utc))


def _label_part(text: str, dt: datetime, end: bool) -> str:
    if len(text.strip()) == 10:
        return ((dt - timedelta(days=1)) if end else dt).date().isoformat()
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H%M%SZ")
