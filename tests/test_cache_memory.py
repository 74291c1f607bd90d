"""The API's cache of legal spaces is bounded by the memory it holds, not by the number of
documents: each kept space is counted for an estimate of the most any request makes it
hold (``held_bytes``), and the least recently asked go first past the budget. Memory is
measured with tracemalloc and the cache's own accounting, never with a clock."""

from __future__ import annotations

import gc
import random
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import suppress
from typing import Any

import numpy as np
import pytest

from benchmarks import generators
from trample.models.document.errors import InputError
from trample.solver.count.work import CountOutOfReach
from trample.solver.interface import api, spaces
from trample.solver.rules.legal_space import held_bytes

from conftest import SPEC_EXAMPLE


def walls(attackers: int, seed: int) -> dict[str, Any]:
    """Tramplers that may each assign as though unblocked (Thorn Elemental), on walls
    that each block two of them: a small document whose space keeps a mode space for each
    of the 2^attackers sets of splits once a request has walked them."""
    rng = random.Random(seed)
    creatures: list[dict[str, Any]] = [
        {"id": f"a{i}", "controller": "ap", "power": rng.randint(3, 9), "toughness": 4,
         "keywords": ["trample"], "attacking": "dp", "as_though_unblocked": True}
        for i in range(attackers)]
    creatures += [{"id": f"b{j}", "controller": "dp", "power": 2,
                   "toughness": rng.randint(1, 5),
                   "blocking": sorted({f"a{j % attackers}", f"a{(j + 1) % attackers}"})}
                  for j in range(attackers + 1)]
    return {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 40}],
            "creatures": creatures}


def _every_request(doc: dict[str, Any]) -> None:
    """Each kind of request a space keeps something for, each asked twice (so kept)."""
    pairs = api.pairs(doc)["pairs"]
    wish = [{"source": s, "target": t, "amount": 1.5} for s, t in pairs]
    asks: list[Callable[[], object]] = [
        lambda: api.solve(doc), lambda: api.solve(doc, objective=["deaths"]),
        lambda: api.solve(doc, objective=["life_loss", "deaths"]),
        lambda: api.count(doc), lambda: list(api.enumerate_assignments(doc, limit=5)),
        lambda: list(api.sample(doc, n=3)), lambda: api.options(doc, []),
        lambda: api.project(doc, wish), lambda: api.unrank(doc, 0),
        lambda: api.validate_many(doc, np.zeros((2, len(pairs)), dtype=np.int64)),
        lambda: api.validate(doc, [])]
    for ask in asks:
        for _ in range(2):
            with suppress(CountOutOfReach, InputError):  # refused: too many, nothing to ask
                ask()


@pytest.fixture(scope="module")
def warmed() -> None:
    """What loads once per process (modules, tables), loaded before anything is traced."""
    _every_request(walls(2, 999))
    _every_request(generators.tiny(2, 999))


@pytest.fixture
def traced(warmed: None) -> Iterator[None]:
    api.forget_spaces()
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    yield
    if started:
        tracemalloc.stop()
    api.forget_spaces()


def _held_now() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


DOCUMENTS = [generators.tiny(1, 3), generators.tiny(3, 4), SPEC_EXAMPLE,
             generators.shared_blockers(4, 8, 0.5, 2), generators.token_swarm(4, 8, 0.5, 3),
             generators.planeswalker_pileup(5, 1), walls(2, 5),
             pytest.param(walls(3, 6), marks=pytest.mark.slow)]  # walls(2, 5)'s kind again


@pytest.mark.usefixtures("traced")
@pytest.mark.parametrize("doc", DOCUMENTS, ids=lambda d: f"{len(d['creatures'])} creatures")
def test_a_kept_space_holds_no_more_than_it_is_counted_for(doc: dict[str, Any]) -> None:
    """After every kind of request, what dropping the kept space frees is at most what
    the cache counted it for."""
    before = _held_now()
    _every_request(doc)
    with_space = _held_now()
    counted = api.kept_bytes()
    assert len(spaces._spaces) == 1
    api.forget_spaces()
    freed = with_space - _held_now()
    assert before <= with_space
    assert 0 < freed <= counted


@pytest.mark.usefixtures("traced")
def test_256_heavy_documents_asked_twice_stay_within_the_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each document's space comes to hold a mode space per set of splits; asked twice,
    each is kept. The memory kept stays within the budget (here 2 MiB, where the 256
    would hold several times that)."""
    docs = [walls(3, seed) for seed in range(256)]
    doc_pairs = [len(api.pairs(doc)["pairs"]) for doc in docs]
    api.validate_many(docs[0], np.zeros((1, doc_pairs[0]), dtype=np.int64))  # loads once
    budget = 2 << 20
    monkeypatch.setattr(spaces, "SPACE_CACHE_BYTES", budget)
    api.forget_spaces()
    before = _held_now()
    for doc, pairs in zip(docs, doc_pairs, strict=True):
        for _ in range(2):
            api.validate_many(doc, np.zeros((1, pairs), dtype=np.int64))
        assert api.kept_bytes() <= budget
    kept = len(spaces._spaces)
    assert 0 < kept < 256
    assert sum(held_bytes(space) for space, _, _ in spaces._spaces.values()) <= budget
    # What stays held is the kept spaces (under the budget) and the hashes of documents
    # seen once (a few hundred bytes each).
    assert _held_now() - before <= budget + spaces.SEEN_KEYS * 200
