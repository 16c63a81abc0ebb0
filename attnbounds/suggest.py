"""Close matches for a mistyped name ("did you mean …?"), shared by the CLI, the model loader
and the normalizer registry (so every layer words the hint the same way)."""

from __future__ import annotations

__all__ = ["close_matches", "did_you_mean"]


def close_matches(word: str, choices, n: int = 3) -> list[str]:
    """Up to ``n`` of ``choices`` close to ``word`` (``difflib.get_close_matches``, ignoring case;
    cutoff 0.5, so that a two-character id such as ``L9`` still finds ``L1``).

    >>> close_matches("l9", ["L1", "C1", "T1i", "L2"])
    ['L1', 'L2']
    >>> close_matches("T1i:transcribd", ["T1i:transcribed", "T1ii:transcribed", "L1"], n=1)
    ['T1i:transcribed']
    """
    import difflib

    by_lower: dict[str, str] = {}
    for c in choices:
        by_lower.setdefault(str(c).lower(), str(c))
    order = {c: i for i, c in enumerate(by_lower)}
    word = str(word).lower()
    found = difflib.get_close_matches(word, list(by_lower), n=n, cutoff=0.5)
    # the closest first; equally close ones in the order of ``choices`` (difflib: reverse alphabetical)
    found.sort(key=lambda m: (-difflib.SequenceMatcher(None, word, m).ratio(), order[m]))
    return [by_lower[m] for m in found]


def did_you_mean(word: str, choices, n: int = 3) -> str:
    """``" (did you mean 'A' or 'B'?)"`` for the close matches of ``word``, or ``""`` without any.

    >>> did_you_mean("gpt-2", ["gpt2", "gpt2-random", "minilm"])
    " (did you mean 'gpt2' or 'gpt2-random'?)"
    >>> did_you_mean("zzz", ["gpt2"])
    ''
    """
    found = [repr(m) for m in close_matches(word, choices, n)]
    if not found:
        return ""
    return f" (did you mean {found[0] if len(found) == 1 else ', '.join(found[:-1]) + ' or ' + found[-1]}?)"
