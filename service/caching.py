"""The in-process caches: one primitive, every cache named, bounded and listed.

A cache here is memory traded for work: dropping any entry only costs making it again.
Every cache of the service is an ``LRU`` (a mapping of at most ``bound`` entries, the
least recently used out first), made with a name and a bound and listed from then on
in this process's registry (``registered``): ``/metrics`` reports each one's entries
and bound, and ``tests/unit/rules/test_bounded_caches.py`` fills every one past its bound. Two
forms are built on it:

- ``cached``, a function's results by its arguments (``functools.lru_cache`` with a name,
  a bound always, and a place in the registry);
- ``IdentityMemo``, what is made from an object, kept by the object's identity.

``docs/architecture.md`` (The caches) lists them: what each holds, its key, its bound, why.

Thread-safety: the caches are used on the event loop; the metrics read their sizes from
a thread. Every operation is one or two operations of an ``OrderedDict`` (each atomic
under the GIL) and tolerates another thread's in between: a race can cost a recency
mark or an entry made twice, never an error or an entry past the bound once it ends.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Generic, ParamSpec, Protocol, TypeVar, cast

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")
A = TypeVar("A", bound=Hashable)
P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

_lock = threading.Lock()
_registry: weakref.WeakSet[LRU[Any, Any]] = weakref.WeakSet()


def registered() -> list[LRU[Any, Any]]:
    """Every cache of this process alive now, by name (a cache of an object, such as
    the app's services, is listed as long as the object lives)."""
    with _lock:
        while True:
            try:
                caches = list(_registry)
                break
            except RuntimeError:  # a cache freed in another thread meanwhile: again
                continue
    return sorted(caches, key=lambda cache: cache.name)


class LRU(Generic[K, V]):
    """At most ``bound`` entries, the least recently used (read or written) out first.
    Made with a name (what ``/metrics`` calls it) and listed in ``registered``.

    The entries are kept by their key's hash, each with its key: a hit hashes the key
    once and compares it once (a mapping by key would do both twice, to find the entry
    and to move it to the end, and a key of rules and dice takes some 2,000 instructions
    to hash). Two keys of one hash share a place: the later put replaces the other, a
    miss for it, never a wrong entry."""

    __slots__ = ("__weakref__", "_entries", "bound", "name")

    def __init__(self, name: str, bound: int) -> None:
        if bound < 0:
            raise ValueError(f"cache {name}: a bound is 0 or more, not {bound}")
        self.name = name
        self.bound = bound
        self._entries: OrderedDict[int, tuple[K, V]] = OrderedDict()
        with _lock:
            _registry.add(self)

    def resize(self, bound: int) -> None:
        """A new bound (the settings' at start-up): the least recently used leave."""
        if bound < 0:
            raise ValueError(f"cache {self.name}: a bound is 0 or more, not {bound}")
        self.bound = bound
        self._trim()

    def get(self, key: K) -> V | None:
        """The entry of ``key`` (None: none), the most recently used now."""
        entries = self._entries
        at = hash(key)
        found = entries.get(at)
        if found is None or not (found[0] is key or found[0] == key):
            return None
        try:  # noqa: SIM105 (free when nothing is raised; a with costs a call)
            entries.move_to_end(at)
        except KeyError:  # another thread let it go meanwhile: it is still found
            pass
        return found[1]

    def peek(self, key: K) -> V | None:
        """The entry of ``key`` (None: none), leaving the order as it is."""
        found = self._entries.get(hash(key))
        return found[1] if found is not None and (found[0] is key or found[0] == key) else None

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` for ``key``, the most recently used now; the least recently
        used leave past the bound."""
        entries = self._entries
        at = hash(key)
        entries[at] = (key, value)
        entries.move_to_end(at)
        if len(entries) > self.bound:
            self._trim()

    def pop(self, key: K) -> V | None:
        """The entry of ``key`` (None: none), no longer kept."""
        at = hash(key)
        found = self._entries.get(at)
        if found is None or not (found[0] is key or found[0] == key):
            return None
        self._entries.pop(at, None)
        return found[1]

    def oldest(self) -> tuple[K, V] | None:
        """The least recently used entry (None: none), leaving it where it is."""
        try:
            return self._entries[next(iter(self._entries))]
        except (StopIteration, KeyError, RuntimeError):  # empty, or emptied meanwhile
            return None

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        found = self._entries.get(hash(key))
        return found is not None and (found[0] is key or found[0] == key)

    def __iter__(self) -> Iterator[K]:
        """The keys, least recently used first (a copy: safe to change the cache meanwhile)."""
        return iter([key for key, _value in list(self._entries.values())])

    def __repr__(self) -> str:
        return f"LRU({self.name!r}, {len(self)}/{self.bound})"

    def _trim(self) -> None:
        entries = self._entries
        while len(entries) > self.bound:
            try:
                entries.popitem(last=False)
            except KeyError:  # emptied by another thread meanwhile
                return


class Cached(Protocol[P, R_co]):
    """A function whose results are kept (``cached``): its ``LRU`` is ``cache``."""

    cache: LRU[Hashable, Any]

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...


def cached(name: str, bound: int) -> Callable[[Callable[P, R]], Cached[P, R]]:
    """A function's results kept by its arguments, given by position (hashable; equal
    arguments are the same key) in an ``LRU`` of ``name`` and ``bound``, the function's
    ``cache``: ``functools.lru_cache`` with a name and a place in the registry. A result
    may be None (it is kept too). Positional arguments only: a hit is a dict lookup and
    a move to the end past the call itself (no keyword dict to make and sort)."""

    def decorate(function: Callable[P, R]) -> Cached[P, R]:
        lru: LRU[Hashable, R] = LRU(name, bound)
        entries = lru._entries
        find, mark = entries.get, entries.move_to_end

        @functools.wraps(function)
        def kept(*args: Any) -> R:
            at = hash(args)
            found = find(at)
            if found is None or found[0] != args:
                made = function(*args)  # type: ignore[call-arg]
                lru.put(args, made)
                return made
            try:  # noqa: SIM105 (free when nothing is raised; a with costs a call)
                mark(at)
            except KeyError:  # another thread let it go meanwhile
                pass
            return found[1]

        kept.cache = lru  # type: ignore[attr-defined]
        return cast(Cached[P, R], kept)

    return decorate


class IdentityMemo(Generic[T, A, V]):
    """What ``make`` makes of an object (and a hashable ``variant``, e.g. a language),
    kept by the object's *identity*, not its equality: for objects handed over again
    and again as the very same object (a computer player's run the rules core keeps for
    a sequence), whose equality would cost more to work out than a hit saves. An equal
    copy is a miss, made again. Each entry holds its object: while the entry is kept,
    the object lives, so its id cannot be given to another object (ids are reused once
    an object is freed) and a hit is always that very object. An ``LRU`` of ``name``
    and ``bound`` holds the entries."""

    __slots__ = ("_entries", "_make", "cache")

    def __init__(self, name: str, bound: int, make: Callable[[T, A], V]) -> None:
        self._make = make
        self.cache: LRU[tuple[int, A], tuple[T, V]] = LRU(name, bound)
        self._entries = self.cache._entries

    def __call__(self, obj: T, variant: A) -> V:
        key = (id(obj), variant)
        at = hash(key)
        found = self._entries.get(at)
        if found is not None and found[1][0] is obj and found[0][1] == variant:
            try:  # noqa: SIM105 (free when nothing is raised; a with costs a call)
                self._entries.move_to_end(at)
            except KeyError:  # another thread let it go meanwhile
                pass
            return found[1][1]
        made = self._make(obj, variant)
        self.cache.put(key, (obj, made))
        return made

    def __len__(self) -> int:
        return len(self.cache)
