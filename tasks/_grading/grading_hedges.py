"""The words that make an answer uncertain or offer another candidate, written once.

Three vocabularies, each applied where it can be judged without reading meaning:

- :data:`VALUE_HEDGE`: inside one field's value ("probably photos", "kids, I think",
  "BACKUP_TARGET? (not sure)", "~73195028"): the value is not one confident answer.
- :data:`VALUE_ALTERNATIVE`: inside one field's value, a second candidate joined by a list word
  ("photos or videos", "A/B", "either ...").
- :data:`ANSWER_HEDGE`: anywhere in the final answer, a phrase that offers another reading of
  the result ("it could also be ...", "depending on how the data is read", "not 100% sure"):
  the answer as a whole is not one candidate, whatever its ``key=value`` lines say.

:data:`RETRACTION` marks prose that takes a value back ("I made a slip above"): a number stated
there or in the next sentence is a candidate. :data:`CONCLUSION` marks prose that restates the
result ("in other words, you will receive a refund"): a label named there is a candidate
(see ``grading_answer``).
"""

from __future__ import annotations

import re

_UNSURE = (
    r"maybe|perhaps|possibly|probably|presumably|likely|apparently|supposedly"
    r"|roughly|approximately|approx|guess(?:ing)?|unsure|uncertain"
    r"|i\s+think|i\s+believe|i\s+suppose|i\s+assume|i\s+reckon|i\s+guess|i'?m\s+guessing"
    r"|not\s+(?:100\s*%\s*|entirely\s+|completely\s+|totally\s+|quite\s+)?(?:sure|certain)"
    r"|if\s+i'?m\s+(?:right|not\s+mistaken)|seems?\s+(?:like|to\s+be)|might\s+be|could\s+be"
    r"|tbd|to\s+be\s+confirmed"
)
VALUE_HEDGE = re.compile(rf"(?<![\w-])(?:{_UNSURE})(?![\w-])|\?|~(?=\s*\d)|≈|±|\+/-", re.IGNORECASE)
VALUE_ALTERNATIVE = re.compile(
    r"(?<![\w-])(?:or|either|and/or|alternatively|otherwise|else|vs\.?|versus)(?![\w-])|\s/\s|\|",
    re.IGNORECASE,
)
ANSWER_HEDGE = re.compile(
    r"(?<![\w-])(?:"
    r"(?:could|might|may|would|can)\s+(?:also|equally|alternatively|just\s+as\s+well|instead)\s+be"
    r"|or\s+(?:possibly|perhaps|maybe|probably|rather|alternatively)"
    r"|alternatively|another\s+(?:possible|candidate|reading|interpretation|possibility|option\s+would)"
    r"|(?:other|alternative)\s+(?:possibility|reading|interpretation|candidate|answer|value|result)"
    r"|depending\s+on\s+(?:how|what|which|whether|the\s+interpretation)|it\s+depends"
    r"|not\s+(?:100\s*%\s*|entirely\s+|completely\s+|totally\s+|quite\s+)?(?:sure|certain)"
    r"|i'?m\s+(?:unsure|uncertain|guessing)|hard\s+to\s+(?:say|tell)|i\s+(?:can'?t|cannot)\s+be\s+sure"
    r")(?![\w-])",
    re.IGNORECASE,
)
RETRACTION = re.compile(
    r"(?<![\w-])(?:"
    r"(?:made|make|there\s+was|there\s+is|found|spotted)\s+an?\s+(?:slip|mistake|error|typo|miscalculation)"
    r"|scratch\s+that|correction|i\s+was\s+wrong|on\s+second\s+thought|let\s+me\s+(?:correct|redo|fix)"
    r"|should\s+have\s+(?:been|said|written)|wait|oops|sorry|my\s+(?:bad|mistake)|i\s+(?:mis\w+|got\s+it\s+wrong)"
    r"|(?:the\s+)?(?:correct|corrected|right|real|revised|updated)\s+(?:value|answer|figure|result|amount|number|total)"
    r")(?![\w-])",
    re.IGNORECASE,
)
CONCLUSION = re.compile(
    r"(?<![\w-])(?:in\s+other\s+words|that\s+is\s+to\s+say|that\s+means|which\s+means|i\.e\.|meaning"
    r"|so|therefore|thus|hence|in\s+short|in\s+summary|to\s+sum\s+up|overall|bottom\s+line)(?![\w-])",
    re.IGNORECASE,
)


def hedge_in(value: str) -> str | None:
    """The hedge or alternative word in one field's value, or None."""
    m = VALUE_HEDGE.search(value) or VALUE_ALTERNATIVE.search(value)
    return m.group(0).strip() if m else None


def answer_hedge(text: str) -> str | None:
    """The phrase of the whole answer that offers another reading of the result, or None."""
    m = ANSWER_HEDGE.search(text)
    return m.group(0) if m else None
