"""The slow pure-Python references the C kernel (native/lrusim/) is tested against.

Held apart from the simulator because nothing but the tests and the benches runs them:
py_trace expands a workload into its page references as native/lrusim/source.c does, PyLRU is a literal port
of buf0lru.cc's list handling (with both servers' linear read-ahead and the page cleaner's
batches), py_stack_histogram is Mattson's stack distances by brute force.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from .geometry import Geometry, leaf_of_id, leaf_phys, level_sizes, phys_leaf
from .pool import (LRU_MIN_LEN, MYSQL_CLEANER_PERIOD_MS, NON_OLD_MIN_LEN, OLD_MIN_LEN, OLD_TOLERANCE,
                   FILLER_SLOTS, RA_RULE_MARIADB, RA_RULE_MYSQL, RATIO_DIV, READ_AHEAD_PAGES)


def py_trace(order: str, stride: int, reps: int, g: Geometry, moves: bool = False) -> Iterator[tuple]:
    """(page, query index) for each page reference; the reference for the C expansion.

    With moves, (page, query index, step) triples: a select whose id is the first key of its leaf
    reads the previous leaf first (the PAGE_CUR_L descent), one whose id is the last key reads on
    to the next leaf; the leaf stepped to is marked (step=True).
    """
    ids = range(1, g.rows + 1, stride)
    if order == "interleaved":
        stream = (i for i in ids for _ in range(reps))
    elif order == "looped":
        stream = (i for _ in range(reps) for i in ids)
    else:
        stream = iter(ids)
    for q, i in enumerate(stream):
        for page, step in py_point_pages(g, i, moves):
            yield (page, q, step) if moves else (page, q)


def py_point_pages(g: Geometry, i: int, moves: bool = True) -> list[tuple[int, bool]]:
    """(page, step) of a point select on id i, root first: with moves, the step to the neighbouring
    leaf where i is its leaf's first key (the previous leaf, then its own) or last (its own, then
    the next); the leaf stepped to is marked. The reference for source.c's source_next and
    source_point_leaves (a key stream's trace, native/keydist.c)."""
    sizes = level_sizes(g)
    bases = [sum(sizes[:k]) for k in range(len(sizes))]
    leaf = leaf_of_id(g, i)
    idx = [leaf]
    for level in range(1, g.height):
        idx.append(0 if level == g.height - 1 else idx[-1] // g.fanout)
    out = [(bases[level] + idx[level], False) for level in range(g.height - 1, 0, -1)]
    if moves and leaf > 0 and i >= 2 and leaf_of_id(g, i - 1) != leaf:
        return out + [(leaf - 1, False), (leaf, True)]
    if moves and leaf + 1 < g.leaf_pages and i < g.rows and leaf_of_id(g, i + 1) != leaf:
        return out + [(leaf, False), (leaf + 1, True)]
    return out + [(leaf, False)]


class PyLRU:
    """A literal port of buf0lru.cc's list handling, with a Python dict-linked list."""

    def __init__(self, capacity: int, pool_pages: int, old_pct: float, old_time_ms: float,
                 ra_threshold: int = 0, ra_area: int = 64, leaf_pages: int = 0, ra_rule: int = RA_RULE_MARIADB,
                 n_pages: int = 0, start_pages: int = 0, start_freed: int = 0, batch: int = 0,
                 tick: tuple = (0, 0.0, MYSQL_CLEANER_PERIOD_MS, 1)):
        self.tick_depth, self.tick_next_ms, self.tick_period_ms, self.ticks_left = tick
        self.prev: dict[int, int | None] = {}
        self.next: dict[int, int | None] = {}
        self.old: dict[int, bool] = {}
        self.access_ms: dict[int, float] = {}
        self.fpc: dict[int, int] = {}
        self.head = self.tail = self.lru_old = None
        self.len = self.old_len = 0
        self.capacity, self.pool_pages = capacity, pool_pages or capacity
        # a full list is emptied down to `low` (the page cleaner's batch; native/lrusim/cleaner.c make_room)
        self.low = capacity - batch + 1 if 1 <= batch < capacity else capacity
        self.ratio = int(old_pct * RATIO_DIV / 100)
        self.old_time_ms = old_time_ms
        self.clock = 0
        self.refs = self.misses = self.made_young = self.not_young = 0
        self.ra_threshold, self.ra_area, self.leaf_pages = ra_threshold, ra_area, leaf_pages
        self.ra_pages = self.ra_evicted = 0
        self.ra_rule, self.n_pages = ra_rule, n_pages
        # start-up pages: ids after the filler slots, resident and accessed before the run
        for i in range(start_pages):
            p = n_pages + FILLER_SLOTS + i
            self._make_room()
            self.access_ms[p] = 0.0
            self._add(p, True)
        self.clock += start_freed
        self.ra_evicted = 0

    def _pages(self):
        p = self.head
        while p is not None:
            yield p
            p = self.next[p]

    def _adjust(self) -> None:
        new_len = min(self.len * self.ratio // RATIO_DIV, self.len - (OLD_TOLERANCE + NON_OLD_MIN_LEN))
        while True:
            if self.old_len + OLD_TOLERANCE < new_len:
                self.lru_old = self.prev[self.lru_old]
                self.old_len += 1
                self.old[self.lru_old] = True
            elif self.old_len > new_len + OLD_TOLERANCE:
                self.old[self.lru_old] = False
                self.lru_old = self.next[self.lru_old]
                self.old_len -= 1
            else:
                return

    def _remove(self, p: int) -> None:
        if self.lru_old == p and self.len >= OLD_MIN_LEN:
            self.lru_old = self.prev[p]
            self.old[self.lru_old] = True
            self.old_len += 1
        pr, nx = self.prev.pop(p), self.next.pop(p)
        if pr is None:
            self.head = nx
        else:
            self.next[pr] = nx
        if nx is None:
            self.tail = pr
        else:
            self.prev[nx] = pr
        self.len -= 1
        was_old = self.old.pop(p)
        if self.len < OLD_MIN_LEN:
            for q in self._pages():
                self.old[q] = False
            self.lru_old, self.old_len = None, 0
            return
        if was_old:
            self.old_len -= 1
        self._adjust()

    def _add(self, p: int, old: bool) -> None:
        if not old or self.len < OLD_MIN_LEN:
            self.prev[p], self.next[p] = None, self.head
            if self.head is None:
                self.tail = p
            else:
                self.prev[self.head] = p
            self.head = p
            self.fpc[p] = self.clock & ((1 << 31) - 1)
        else:
            o = self.lru_old
            nx = self.next[o]
            self.prev[p], self.next[p] = o, nx
            self.next[o] = p
            if nx is None:
                self.tail = p
            else:
                self.prev[nx] = p
            self.old_len += 1
        self.len += 1
        if self.len > OLD_MIN_LEN:
            self.old[p] = old
            self._adjust()
        elif self.len == OLD_MIN_LEN:
            for q in self._pages():
                self.old[q] = True
            self.lru_old, self.old_len = self.head, self.len
            self._adjust()
        else:
            self.old[p] = self.lru_old is not None

    def _too_old(self, p: int, now_ms: float) -> bool:
        if self.clock == 0:
            return False
        if self.old_time_ms > 0 and self.old[p]:
            first = self.access_ms.get(p, -1.0)
            if first >= 0 and now_ms - first >= self.old_time_ms:
                return True
            self.not_young += 1
            return False
        quarter = self.pool_pages * (RATIO_DIV - self.ratio) // (RATIO_DIV * 4)
        return not ((self.clock & ((1 << 31) - 1)) < self.fpc.get(p, 0) + quarter)

    def _make_room(self) -> None:
        if self.len < self.capacity:
            return
        while self.len > 0 and self.len + 1 > self.low:
            victim = self.tail
            self._remove(victim)
            if self.access_ms.pop(victim, None) is None:
                self.ra_evicted += 1
            self.clock += 1

    def _cleaner_tick(self, now_ms: float) -> None:
        """native/lrusim/cleaner.c cleaner_tick: MySQL's timed LRU batch."""
        n = 0
        while self.len > LRU_MIN_LEN and n < self.tick_depth and self.capacity - self.len < self.tick_depth:
            victim = self.tail
            self._remove(victim)
            if self.access_ms.pop(victim, None) is None:
                self.ra_evicted += 1
            self.clock += 1
            n += 1
        if self.ticks_left == 1 or self.tick_period_ms <= 0:
            self.tick_depth = 0
            return
        if self.ticks_left > 1:
            self.ticks_left -= 1
        while self.tick_next_ms <= now_ms:
            self.tick_next_ms += self.tick_period_ms

    def access(self, p: int, now_ms: float, step: bool = False) -> None:
        if self.tick_depth and now_ms >= self.tick_next_ms:
            self._cleaner_tick(now_ms)
        first = p not in self.access_ms
        self.refs += 1
        if p in self.prev:
            if self._too_old(p, now_ms):
                if self.old[p]:
                    self.made_young += 1
                self._remove(p)
                self._add(p, False)
        else:
            self.misses += 1
            self._make_room()
            self.access_ms.pop(p, None)
            self._add(p, True)
        if p not in self.access_ms:
            self.access_ms[p] = now_ms
        if first and self.ra_threshold:
            if self.ra_rule == RA_RULE_MYSQL:
                if p < self.leaf_pages:
                    self._read_ahead_mysql(p)
            elif step:
                self._read_ahead(p)

    def _page_at(self, page: int) -> int | None:
        """The simulated page on a physical page for MySQL's read-ahead (native/lrusim/readahead.c's sim_page_at)."""
        k = phys_leaf(page, self.leaf_pages)
        if k is not None:
            return k
        upper = self.n_pages - self.leaf_pages
        if page == 3 and upper:
            return self.n_pages - 1
        if page < 64:
            if page >= 36 and page - 36 + 1 < upper:
                return self.leaf_pages + page - 36
            return self.n_pages + page
        tail = leaf_phys(self.leaf_pages - 1) + 1
        if tail <= page < tail + 63 and page % 16384 >= 64:
            return self.n_pages + 64 + page - tail
        return None

    def _read_ahead_mysql(self, p: int) -> None:
        """MySQL 8.0-9.x's buf_read_ahead_linear on the first access of leaf p."""
        area, page = self.ra_area, leaf_phys(p)
        low = page // area * area
        high = low + area
        if page not in (low, high - 1):
            return
        asc = 1 if page == high - 1 else -1
        threshold, fails, pred = min(READ_AHEAD_PAGES - self.ra_threshold, area), 0, None
        for i in range(low, high):
            k = self._page_at(i)
            if k is None or k not in self.prev or k not in self.access_ms:
                fails += 1
            else:
                t = self.access_ms[k]
                if pred is not None and t != pred and (1 if t > pred else -1) != asc:
                    fails += 1
                pred = t
            if fails > threshold:
                return
        if page == low and p + 1 < self.leaf_pages and leaf_phys(p + 1) == page + 1:
            if p == 0:
                return
            nxt = leaf_phys(p - 1)
        elif page == high - 1 and p > 0 and leaf_phys(p - 1) == page - 1:
            if p + 1 >= self.leaf_pages:
                return
            nxt = leaf_phys(p + 1)
        else:
            return
        low = nxt // area * area
        high = low + area
        if nxt not in (low, high - 1) or high > (leaf_phys(self.leaf_pages - 1) // 64 + 1) * 64:
            return
        for i in range(low, high):
            k = None if i % 16384 == 1 else self._page_at(i)
            if k is not None and k not in self.prev:
                self.misses += 1
                self.ra_pages += 1
                self._make_room()
                self.access_ms.pop(k, None)
                self._add(k, True)

    def _read_ahead(self, p: int) -> None:
        """buf_read_ahead_linear on the first access of leaf p, on physical page numbers."""
        area, high = self.ra_area, leaf_phys(p)
        if high % area != area - 1 or p == 0 or p + 1 >= self.leaf_pages:
            return
        budget = min(READ_AHEAD_PAGES - self.ra_threshold, area)
        prev = None
        for page in range(high + 1 - area, high + 1):
            k = phys_leaf(page, self.leaf_pages)
            if k is None or k not in self.access_ms:  # not resident, or read ahead and unused
                fail = True
            else:
                fail = prev is not None and prev > self.access_ms[k]
                prev = self.access_ms[k]
            if fail:
                budget -= 1
                if not budget:
                    return
        for page in range(high + 1, high + area + 1):
            k = phys_leaf(page, self.leaf_pages)
            if k is None or k in self.prev:
                continue
            self.misses += 1
            self.ra_pages += 1
            self._make_room()
            self._add(k, True)


def py_simulate(trace: Iterable[tuple], capacity: int, pool_pages: int, old_pct: float,
                 old_time_ms: float, ms_per_query: float, ra_threshold: int = 0, ra_area: int = 64,
                 leaf_pages: int = 0, ra_rule: int = RA_RULE_MARIADB, n_pages: int = 0, start_pages: int = 0,
                 start_freed: int = 0, batch: int = 0,
                 tick: tuple = (0, 0.0, MYSQL_CLEANER_PERIOD_MS, 1)) -> tuple[int, int, int, int, int, int]:
    """(refs, misses, made_young, not_young, read_ahead, read_ahead_evicted) of InnoDB's LRU on
    (page, query index) pairs or (page, query index, step) triples (see py_trace). n_pages: the
    table's pages (MySQL's read-ahead maps the pages above the leaves, and start-up pages follow)."""
    lru = PyLRU(capacity, pool_pages, old_pct, old_time_ms, ra_threshold, ra_area, leaf_pages, ra_rule,
                 n_pages, start_pages, start_freed, batch, tick)
    for ref in trace:
        lru.access(ref[0], ref[1] * ms_per_query, len(ref) > 2 and ref[2])
    return lru.refs, lru.misses, lru.made_young, lru.not_young, lru.ra_pages, lru.ra_evicted


def py_stack_histogram(trace: Iterable[int], n_pages: int) -> list[int]:
    """Mattson by brute force: an explicit LRU stack; hist[0] = cold misses, hist[d] = distance d."""
    stack: list[int] = []
    hist = [0] * (n_pages + 1)
    for p in trace:
        if p in stack:
            d = len(stack) - stack.index(p)
            hist[d] += 1
            stack.remove(p)
        else:
            hist[0] += 1
        stack.append(p)
    return hist
