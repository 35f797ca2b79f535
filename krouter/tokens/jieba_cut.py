"""jieba's own cut of a Han run (HMM on), word for word, in less time: the cold build's tokeniser.

Indexing spends most of its time in jieba (issue #16). ``Cutter`` reproduces ``jieba.cut(run, HMM=True)``
exactly (``tests/test_fast_cut.py`` compares the two on random and real runs, and follows a dictionary
that changes); a question is still cut by jieba itself (``chinese.question_jieba``).
"""

from __future__ import annotations

import math

from krouter.lazy_pattern import lazy_pattern

_JIEBA_HAN = lazy_pattern("[\u4e00-\u9fd5]+")  # a run of only these is one block to jieba's cut
# HMM cuts kept per process (41 % of the stretches recur at 10k generated pages); cleared when full.
_HMM_MEMO_MAX = 20_000
_STATE = {"B": 0, "M": 1, "E": 2, "S": 3}


class _LogFreq(dict):
    """``log(freq) - log(total)`` by frequency, as jieba computes it, each computed once."""

    def __init__(self, total: int) -> None:
        super().__init__()
        self.logtotal = math.log(total)

    def __missing__(self, f: int) -> float:
        p = self[f] = math.log(f) - self.logtotal
        return p


class Cutter:
    """jieba's ``cut(run, HMM=True)`` of a run of jieba's Han characters, word for word, in less time.

    jieba builds a dict of lists per run, a generator of tuples per character and copies its HMM path
    at every step. This does the same float arithmetic in the same order, ties broken as ``max`` over
    ``(score, position)`` and ``(probability, state)`` tuples breaks them (the later one wins), in one
    backward pass and a backtrace; HMM cuts are remembered. Other runs go to jieba's own ``cut``."""

    def __init__(self, jieba) -> None:
        from jieba import finalseg

        self.jieba, self.dt, self.finalseg = jieba, jieba.dt, finalseg
        self.freq: dict[str, int] = jieba.dt.FREQ
        self.total = jieba.dt.total
        self.by_freq = _LogFreq(self.total)
        self.hmm_memo: dict[str, list[str]] = {}
        start, trans, emit, self.low = finalseg.start_P, finalseg.trans_P, finalseg.emit_P, finalseg.MIN_FLOAT
        self.start = (start["B"], start["M"], start["E"], start["S"])
        self.emit = (emit["B"], emit["M"], emit["E"], emit["S"])
        self.trans = tuple(
            trans[a].get(b, self.low) for a, b in ("EB", "SB", "MM", "BM", "SS", "ES", "BE", "ME")
        )

    def current(self, loaded) -> bool:
        """False once jieba was loaded again (``loaded`` is not the module this cutter was made from) or
        its dictionary replaced or grown (``add_word``)."""
        dt = self.dt
        return (
            loaded is self.jieba and dt is self.jieba.dt and dt.FREQ is self.freq and dt.total == self.total
        )

    def cut(self, run: str) -> list[str]:
        """jieba's words for ``run``, as ``jieba.cut(run, HMM=True)`` gives them."""
        if not _JIEBA_HAN.fullmatch(run):
            return [w for w in self.jieba.cut(run, HMM=True) if w.strip()]
        freq, by_freq, n = self.freq, self.by_freq, len(run)
        score = [0.0] * n + [0]  # jieba's route[N] is (0, 0): the int 0, added as such
        end = [0] * n
        for k in range(n - 1, -1, -1):
            best, last, i = None, k, k
            # jieba's DAG: the prefixes of run[k:] in the dictionary, up to the first that is not; those
            # with a frequency are the candidates, else the character alone.
            f = freq.get(run[k])
            while f is not None:
                if f:
                    s = by_freq[f] + score[i + 1]
                    if best is None or s >= best:
                        best, last = s, i
                i += 1
                f = freq.get(run[k : i + 1]) if i < n else None
            score[k], end[k] = (by_freq[freq.get(run[k]) or 1] + score[k + 1]) if best is None else best, last
        out: list[str] = []
        x, buf = 0, ""
        while x < n:
            y = end[x] + 1
            if y - x == 1:
                buf += run[x]
            else:
                if buf:
                    self._unknown(buf, out)
                    buf = ""
                out.append(run[x:y])
            x = y
        if buf:
            self._unknown(buf, out)
        return out

    def _unknown(self, buf: str, out: list[str]) -> None:
        """A stretch the route cut into single characters, as jieba's cut treats it."""
        if len(buf) == 1 or self.freq.get(buf):
            out.extend(buf)
            return
        words = self.hmm_memo.get(buf)
        if words is None:
            if len(self.hmm_memo) >= _HMM_MEMO_MAX:
                self.hmm_memo.clear()
            words = self.hmm_memo[buf] = self._hmm(buf)
        split = self.finalseg.Force_Split_Words
        out.extend(c for w in words for c in (w if w in split else (w,))) if split else out.extend(words)

    def _hmm(self, obs: str) -> list[str]:
        """jieba.finalseg's cut of a stretch of its Han characters (before its forced splits)."""
        (eB, eM, eE, eS), (sB, sM, sE, sS), low = self.emit, self.start, self.low
        tEB, tSB, tMM, tBM, tSS, tES, tBE, tME = self.trans
        c = obs[0]
        vB, vM, vE, vS = sB + eB.get(c, low), sM + eM.get(c, low), sE + eE.get(c, low), sS + eS.get(c, low)
        back = []  # per step, the state each state came from (on a tie the later letter: S, M)
        for c in obs[1:]:
            em = eB.get(c, low)
            pE, pS = vE + tEB + em, vS + tSB + em
            nB, fB = (pS, "S") if pS >= pE else (pE, "E")
            em = eM.get(c, low)
            pM, pB = vM + tMM + em, vB + tBM + em
            nM, fM = (pM, "M") if pM >= pB else (pB, "B")
            em = eS.get(c, low)
            pS, pE = vS + tSS + em, vE + tES + em
            nS, fS = (pS, "S") if pS >= pE else (pE, "E")
            em = eE.get(c, low)
            pB, pM = vB + tBE + em, vM + tME + em
            vE, fE = (pM, "M") if pM >= pB else (pB, "B")
            vB, vM, vS = nB, nM, nS
            back.append((fB, fM, fE, fS))
        states = ["S" if vS >= vE else "E"]
        for came in reversed(back):
            states.append(came[_STATE[states[-1]]])
        words: list[str] = []
        begin = nexti = 0
        for i, pos in enumerate(reversed(states)):
            if pos == "B":
                begin = i
            elif pos in "ES":
                words.append(obs[begin : i + 1] if pos == "E" else obs[i])
                nexti = i + 1
        if nexti < len(obs):
            words.append(obs[nexti:])
        return words
