"""How trample searches: the CP-SAT settings chosen by measurement, as one frozen value.

A :class:`SearchSettings` is passed from ``optimize.solve`` down to each CP-SAT model
(never read from a module global a caller could change while other threads search), so
``python -m benchmarks.settings`` compares variants by passing them. Importing this does
not load OR-Tools.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from trample.solver.optimize.cancel import Cancel

QUICK_DETERMINISTIC_TIME = 2.0
"""Effort (CP-SAT's deterministic time, roughly seconds) of the first, single-worker try."""
PORTFOLIO_WORKERS = 8
"""Workers of the second try, interleaved deterministically (a fixed number, whatever the
machine, so that every machine gives the same answer)."""


SMALL_MODEL = 256
"""Models with at most this many variables are searched in the first try without presolve,
without LP relaxation and without the greedy hint: measured on the coupled parts of the
benchmark families (``python -m benchmarks.settings``), that proves them up to twice as
soon; larger models need presolve and the relaxation."""
QUICK_WIDEST = 16
"""The widest domain (the largest amount a variable can take) of a small model searched the
quick way: past it, the first try presolves (without probing) and builds the full LP
relaxation (linearization level 2), from the hint. Without the relaxation, CP-SAT closes in
on wide amounts a step at a time: three tramplers of power 64 on three 0/64 walls that
each block all of them, CP-SAT alone, took 1.4 s, and at power 2^40 (past what HiGHS is
given) the shipped search took 38 s, against 4 to 9 ms now. On 480 random small combats
of wide amounts (``python -m benchmarks.wide``: 2-5 attackers, 2-7 blockers, amounts up
to 16 to 2^40, two objectives each, time limit 5 s) the quick way left 39 of 960 solves
unproved and took over 1 s on 72 (336 s in all); this way, none and none (5.4 s, the
slowest 0.15 s), at 4.6 ms against 2.9 ms the median solve. With probing, some models
took seconds; the quick way first for a short effort, then this, left 9 of 960 of
another draw unproved. The benchmark families' small models are at most 12 wide and
keep the quick try."""
RELAXED_WIDEST = 1 << 24
"""The widest domain of a model of more than :data:`SMALL_MODEL` variables whose first try
presolves with probing and builds the LP relaxation at level 1; past it, the first try
is the relaxed one of wide small models (:data:`QUICK_WIDEST`). Measured on benchmark
combats with every amount multiplied by 2^29 (plus noise): 30% shared at 100 x 300, seed
1, 13.2 s -> 1.5 s; seed 0 of 5% shared at 30 x 90, 0.58 s -> 0.02 s; armies, pile-ups,
token swarms and ranks unchanged (16 combats, none slower). Multiplied by 2^10 or 2^20
the two first tries were as fast as each other, and the benchmark's own amounts are far
below it."""
HINT_SMALL_MODELS = False
"""Whether the first try on a small model starts from the hint all the same (measured
slower: on planeswalker pile-ups the greedy split leads the search astray)."""


KILLS_FIRST = True
"""Whether a group whose first term to gain is ``kills`` is searched from a proved ceiling
on it (:func:`trample.solver.optimize.kill_bound.kills_ceiling`) down: CP-SAT is asked for the
best split that kills at least that much, then one less (a few times) while that is
infeasible, before a search of the whole range below."""
KILLS_DESCENT = 5
"""How many values of ``kills`` are tried from the ceiling down before the search of the
whole range below the last one found infeasible."""
KILLS_FIXING = True
"""Whether each try at a value ``k`` of ``kills`` from the ceiling down starts with the
creatures fixed that the ceiling's prices prove every split killing ``k`` kills, or spares
(:meth:`trample.solver.optimize.kill_bound.Ceiling.decided`), and skips a ``k`` one creature
rules out both ways."""


BREAK_SYMMETRY = True
"""Whether :func:`trample.solver.optimize.cpsat.solve_group` orders the amounts of interchangeable
creatures by default (on token swarms of 30 attackers, about 1.5 times sooner:
``python -m benchmarks.settings``)."""


ISOLATE = True
"""Whether CP-SAT's multi-worker portfolio runs in a child process
(:mod:`trample.solver.optimize.isolated`): a C++ exception in one of its worker threads
(CP-SAT 9.15 throws ``absl::btree_map::at`` in the presolve of some hinted models, and
presolves each large-neighbourhood-search move with a hint) ends the process it runs in.
The single-worker first try runs in the calling thread, where such an exception reaches
Python and is searched again without its cause."""


SYMMETRY_DETECTION_VARIABLES = 5_000
"""Models with more variables than this are searched without CP-SAT's own symmetry
detection in presolve: it does not heed the time limit (on 19,999 interchangeable tokens
it ran 30 s of a 7 s budget), and the orders :data:`BREAK_SYMMETRY` adds do its job."""


STOP_SECONDS_PER_VARIABLE = 5e-5
"""Of the time left when a CP-SAT run starts, what is kept back from its own time limit per
variable of the model (at most half of it): CP-SAT stops some time after its limit, the
later the larger the model (its interleaved portfolio checks the clock between batches of
work), and the split found must still be read back, checked and written. Measured on a
wide gang of 4,000 blockers with amounts x2^20 (8,002 variables): a 19.6 s portfolio
run stopped 0.2 s late, and a 30 s request answered in 30.2 to 30.9 s."""


Backend = Literal["auto", "cpsat", "milp"]
BACKEND: Backend = "auto"
"""Which exact backend searches a coupled group: ``"cpsat"``, ``"milp"`` (HiGHS, falling
back to CP-SAT for a group it cannot settle exactly) or ``"auto"`` (chosen per group by
its size, :data:`MILP_PAIRS`)."""
MILP_PROBE_PAIRS = 60
"""Under ``"auto"``, groups with at least this many pairs, and fewer than
:data:`MILP_PAIRS`, are first given to CP-SAT for a short single-worker try
(:data:`MILP_PROBE_TIME`); if that does not prove them, to HiGHS."""
MILP_PROBE_TIME = 0.01
"""Effort (CP-SAT's deterministic time) of that try, in all its runs (the descent from the
ceiling on ``kills`` makes up to :data:`KILLS_DESCENT` and one more,
:attr:`SearchSettings.effort`): a fixed effort, not a clock, so the answer does not
depend on the machine. The parts it proves take 0.0001 to 0.005 (30% shared blockers at
30 x 90, seeds 0-5 and the benchmark's six) and up to 0.008 at 50% shared; when each run
had 0.01 of its own, a try that failed spent 0.01 to 0.045 (14 to 68 ms) on parts of 50%
and 70% shared blockers before HiGHS proved them in 5 to 20 ms."""
MILP_RESCUE_EFFORT = 0.005
"""Under ``"auto"``, the effort (CP-SAT's deterministic time, all runs together) within
which CP-SAT's first try must prove a group of fewer than :data:`MILP_PROBE_PAIRS` pairs;
past it, HiGHS searches the group (and CP-SAT's full search only if HiGHS cannot settle
it). Measured on the small groups searched in the benchmark's families and in shared
blockers and token swarms of 10 x 30 with 30% to 70% shared (seeds 0-3): 30 of 35 are
proved within 0.005, most within 0.002, in 1.5 to 7 ms; the others took CP-SAT's first
try 12 to 75 ms (0.0075 to 0.076), and one of 45 pairs (tokens, 50% shared) 980 ms,
where HiGHS proves each in 2 to 11 ms. At 0.003 instead, two groups proved at 0.0034
and 0.0038 took 1.3x and 1.45x as long (the try, then HiGHS)."""
MILP_ALIKE = 6
"""Under ``"auto"``, a group of at least :data:`MILP_PROBE_PAIRS` pairs whose recipients
hold at least this many interchangeable creatures (in classes of two or more,
:func:`trample.solver.optimize.objectives.identical_creatures`) goes to HiGHS at once: on
token swarms CP-SAT's short try fails there, while shared blockers have a few such pairs at most.
Measured on seeds the benchmark does not run: the token swarms' mid-sized parts hold 8 to
30 such creatures, the parts of 30% shared blockers at 30 x 90 at most 4 (12 seeds each);
at 6 instead of 10, the parts with 8 or 9 go to HiGHS without the try (one of them 20.9
ms of CPU with the try, of which the try was 15), which made token swarms of 30 x 90 and
100 x 300 and 30% shared at 100 x 300 4%, 8% and 7% sooner in all, the 400 x 1,200 sizes
within 2%."""
MILP_SHARED = 25
"""Under ``"auto"``, a group of at least :data:`MILP_PROBE_PAIRS` pairs in which at least
this many creatures are blocking two or more of its sources goes to HiGHS at once, as a
token swarm's does (:data:`MILP_ALIKE`). Measured on the 48 groups of 60 to 149 pairs,
not token swarms' (those go to HiGHS already), of shared blockers and token swarms of
30 x 90 with 30%, 50% and 70% shared (seeds 0-3 and 7000-7002, in-process): of the 27
with 25 or more such creatures, CP-SAT's short try failed on 18, each failure costing 16
to 21 ms before HiGHS proved the group in 3 to 30 ms (93 and 264 ms on two), and proved
9 in 3 to 13 ms where HiGHS takes 3 to 20; 956 ms in all with the try, 626 without. Of
the 21 with fewer, it failed on 2; the benchmark's 30% shared at 30 x 90 hold 10 to 20
such creatures per group."""
MILP_KINDS = 0.25
"""Under ``"auto"``, a group of at least :data:`MILP_PROBE_PAIRS` pairs whose creatures
come in at most this share of kinds (the damage each needs for lethal and its value to
``kills``), as a token swarm's do whoever each token blocks, goes to HiGHS at once.
Measured on the 46 groups of 60 to 149 pairs, not token swarms' by
:data:`MILP_ALIKE`, of shared blockers and token swarms of 30 x 90 with 30%, 50% and 70%
shared (seeds 0-3 and 7000-7002): token swarms' 8 come in 3 kinds for 35 to 49 creatures
(0.06 to 0.09 of their number), and CP-SAT's short try failed on 6 of them after 16 to
28 ms (HiGHS: 3 to 23 ms) and proved the other two in 6.5 and 7.8 ms (HiGHS: 3.2 and
2.7); shared blockers' 38 come in 0.55 to 0.79 as many kinds as creatures. (Of the 8,
only one of 50% shared, 21 shared blockers, is not sent already by
:data:`MILP_SHARED`: 28 ms with the try, 3 without.)"""
EARLY_REST = 0.1
"""A group of parts coupled by a contested target (a player or permanent whose threshold
a term counts), whose largest part is searched (:data:`MILP_PROBE_PAIRS` pairs or more)
and the others together hold at most this share of its pairs, is searched as one group
counting the target at once, unless the legal ceilings show the target out of reach.
Searched alone first, with the target left out, the large part is searched again with
the others once the target proves reachable: three searches (alone, the exact bound,
together) where one does."""
MILP_PACK_SHARE = 0.2
"""Under ``"auto"``, such groups (:data:`MILP_ALIKE`) are searched together in one HiGHS
model only when the interchangeable creatures are at least this share of the creatures
they assign to; any other is searched alone. Measured on the coupled parts of at least
60 pairs (seeds 0-7 at 30 x 90, 0-5 at 100 x 300, 0-1 at 400 x 1,200): token swarms' hold
29% to 50% of interchangeable creatures, 30% shared blockers' 0% to 10%. A large part of
shared blockers holds 6 or more by chance (30% shared at 100 x 300, seed 4: two parts of
209 and 246 pairs; at 400 x 1,200 all of them), and two packed into one model took
HiGHS 1.45x the work of the two apart, on one thread where apart they take two."""
MILP_PAIRS = 150
"""Under ``"auto"``, groups with at least this many (source, recipient) pairs go to HiGHS:
measured on the benchmark families' searched groups, HiGHS's LP relaxation proves the
large groups of shared blockers and token swarms (200 pairs and more) 3 to 150 times
sooner than CP-SAT, while CP-SAT proves groups under 100 pairs (planeswalker pile-ups,
blockers shared by a few attackers) in a few milliseconds, sooner than HiGHS is set up."""


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """How a search runs: a value passed down from ``optimize.solve`` to each model, so
    that a caller (the benchmarks) can compare variants while other threads search with
    the shipped ones. The defaults are the shipped settings (the module constants)."""

    symmetry: bool = BREAK_SYMMETRY
    """Order the amounts of interchangeable creatures (:func:`identical_creatures`)."""
    small_model: int = SMALL_MODEL
    """Variables up to which the first try runs without presolve, LP and hint."""
    quick_widest: int = QUICK_WIDEST
    """The widest domain of a small model searched that way (:data:`QUICK_WIDEST`)."""
    relaxed_widest: int = RELAXED_WIDEST
    """The widest domain of a larger model whose first try keeps probing and
    linearization level 1 (:data:`RELAXED_WIDEST`)."""
    hint_small_models: bool = HINT_SMALL_MODELS
    """Whether the first try on a small model starts from the hint all the same."""
    quick_deterministic_time: float = QUICK_DETERMINISTIC_TIME
    """Effort of the first, single-worker try."""
    portfolio_workers: int = PORTFOLIO_WORKERS
    """Workers of the second try."""
    symmetry_detection_variables: int = SYMMETRY_DETECTION_VARIABLES
    """Variables up to which CP-SAT's presolve looks for symmetries itself."""
    stop_seconds_per_variable: float = STOP_SECONDS_PER_VARIABLE
    """Seconds per model variable that a CP-SAT run's time limit keeps back from the
    time left (:data:`STOP_SECONDS_PER_VARIABLE`)."""
    backend: Backend = BACKEND
    """``"auto"``, ``"cpsat"`` or ``"milp"`` (:data:`BACKEND`)."""
    milp_pairs: int = MILP_PAIRS
    """Under ``"auto"``, the fewest (source, recipient) pairs of a group that HiGHS
    searches."""
    milp_probe_pairs: int = MILP_PROBE_PAIRS
    """Under ``"auto"``, the fewest pairs of a group that CP-SAT tries briefly first."""
    milp_probe_time: float = MILP_PROBE_TIME
    """Effort of that try (CP-SAT's deterministic time)."""
    milp_rescue_effort: float = MILP_RESCUE_EFFORT
    """Under ``"auto"``, the effort within which CP-SAT must prove a group smaller than
    :attr:`milp_probe_pairs` before HiGHS searches it."""
    milp_alike: int = MILP_ALIKE
    """Under ``"auto"``, the fewest interchangeable recipients that send a group of at
    least :attr:`milp_probe_pairs` pairs to HiGHS without the short CP-SAT try."""
    milp_shared: int = MILP_SHARED
    """Under ``"auto"``, the fewest creatures blocking two or more of a group's sources
    that send a group of at least :attr:`milp_probe_pairs` pairs to HiGHS without the
    short CP-SAT try."""
    milp_kinds: float = MILP_KINDS
    """Under ``"auto"``, the greatest share of kinds among a group's creatures (of at
    least :attr:`milp_probe_pairs` pairs) that sends it to HiGHS without the short
    CP-SAT try."""
    milp_pack_share: float = MILP_PACK_SHARE
    """Under ``"auto"``, the least share of interchangeable creatures among a group's for
    it to be searched together with the other such groups."""
    effort: float | None = None
    """A total effort (CP-SAT's deterministic time) for all the runs of one group's
    search, each ending at what is left of it; None: no total, each first try has its
    own :attr:`quick_deterministic_time`."""
    second_try: bool = True
    """Whether CP-SAT follows an unproved first try with the portfolio."""
    early_rest: float = EARLY_REST
    """A group with a contested target that the legal ceilings do not rule out, one of
    whose parts is searched and holds all but this share of its pairs, is searched as one
    group at once (:data:`EARLY_REST`)."""
    kills_first: bool = KILLS_FIRST
    """Whether a group is searched from a ceiling on ``kills`` down (:data:`KILLS_FIRST`)."""
    kills_descent: int = KILLS_DESCENT
    """How many values of ``kills`` are tried from the ceiling down."""
    kills_fixing: bool = KILLS_FIXING
    """Whether each of those tries starts with the creatures the ceiling decides fixed
    (:data:`KILLS_FIXING`)."""
    kill_steps: bool = False
    """Under ``"auto"``, whether a group that HiGHS searches without CP-SAT's short try
    (not a token swarm's) is first searched on each source's options for its own
    creatures, where that model applies (:mod:`trample.solver.optimize.kill_steps`). Off
    as shipped: against the model per pair, from the sources, it saved about 5% of a
    solve's CPU time on 30% shared blockers at 100 x 300 and nothing measurable at 30 x
    90; compiled it cost 5% to 7% there (docs/performance.md, "Against the compact
    MILP"); and a group it does not prove pays for both searches."""
    dynamic_program: bool = True
    """Whether groups coupled only by thresholds are settled without search when narrow
    enough (:mod:`trample.solver.optimize.lone_groups`)."""
    lone_parts: bool = True
    """Whether a space whose every part is one source with recipients of its own (a small
    combat of several attackers, each with its own blockers) has its parts answered from
    their holding and passing candidates without the general dispatch
    (:func:`trample.solver.optimize.solve._lone_pieces`; the same answer, sooner)."""
    threads: int | None = None
    """Groups searched at once; None: ``$TRAMPLE_THREADS``, else the CPUs available."""
    cancel: Cancel | None = None
    """Set from another thread to stop the search (``serve``'s ``$/cancelRequest``): it
    answers the best split found so far, at worst the greedy one."""
    isolate: bool = ISOLATE
    """Run the multi-worker portfolio in a child process (:data:`ISOLATE`)."""

    def cancelled(self) -> bool:
        """Whether :attr:`cancel` is set."""
        return self.cancel is not None and self.cancel.is_set()


BACKEND_VARIABLE = "TRAMPLE_BACKEND"
"""An environment variable that chooses the backend of every search in the process:
``auto``, ``cpsat`` or ``milp`` (any other value is ignored)."""


def _backend_from_environment() -> Backend:
    chosen = os.environ.get(BACKEND_VARIABLE, "")
    if chosen == "cpsat":
        return "cpsat"
    if chosen == "milp":
        return "milp"
    return BACKEND


SHIPPED = SearchSettings(backend=_backend_from_environment())
"""The settings every caller gets unless it passes others (the backend as
``$TRAMPLE_BACKEND`` says, else :data:`BACKEND`)."""
