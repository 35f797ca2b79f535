"""British spellings read as the American ones (colour as color, organise as organize, centre as center).

A vault written in one spelling meets questions in the other, and CC-CEDICT glosses its words in the
American one: "colour", "licence" or "organise" had no Chinese translation at all, and "grey" reached
only the name 格雷. Both sides of every English comparison (pages, questions, dictionary glosses) read a
word through `canonical` before it is stemmed, so the two spellings are one term.

Only families whose British form is no other English word are listed, each by the part that differs,
with the endings it takes: a rule "-ise is -ize" would turn advise, exercise or promise into words
nobody writes, and "-our is -or" would reach four, hour and tour. Left out on purpose: cheque (check),
storey (story), tonne (ton), disc, draught, kerb, spelt and smelt (each also another word); litre,
practise and tyre, whose American forms stem as literal, practical and tired do (liter, practic, tire);
and the "-ll-" spellings (travelled, cancelled), which the stemmer already makes one.
"""

from __future__ import annotations

from krouter.lazy_pattern import lazy_pattern

# Words spelt "-our" in British English and "-or" in American, as the part before "our".
_OUR = (
    "arb ard arm behavi cand clam col demean endeav fav ferv flav harb hon hum lab neighb od parl rig "
    "rum sav savi splend succ tum val vap vig"
).split()
# Verbs spelt "-ise" in British English and "-ize" in American, as the part before "ise" (with their
# nouns in "-isation" and agents in "-iser"). Verbs in "-ise" in both (advise, exercise, promise,
# advertise, supervise, compromise) are not here.
_ISE = (
    "accessor acclimat actual agon amort anesthet anonym antagon apolog author bapt brutal cannibal "
    "capital caramel categor central character civil colon color commercial computer container critic "
    "custom democrat digit dramat econom emphas energ epitom equal "
    "eulog evangel familiar fantas fertil final formal fossil galvan general global harmon "
    "homogen hospital human hybrid hypnot hypothes ideal immun incentiv industrial initial internal item "
    "jeopard legal legitim liberal local magnet marginal material maxim mechan memor mesmer miniatur minim "
    "mobil modern moistur monet monopol moral motor national natural neutral normal operational optim "
    "organ ostrac oxid parallel parameter pasteur patron penal personal philosoph plagiar polar popular "
    "priorit privat public pulver random rational real recogn regular revolution ritual romantic "
    "sanit satir scandal scrutin sensit serial social special spiritual stabil standard steril stigmat "
    "subsid summar symbol sympath synchron synthes system tantal terror theor token tranquil traumat "
    "trivial tyrann union urban util vandal vapor verbal victim virtual visual vocal"
).split()
_ISE_ENDINGS = "e|ed|es|ing|er|ers|ation|ations|ational|able"
# Nouns and verbs spelt "-yse" in British English ("analyse"), as the part before "yse".
_YSE = "anal breathal catal dial electrol hydrol paral".split()
# Words spelt "-re" in British English and "-er" in American, as the part before "re" (centre, centred,
# centring are center, centered, centering).
_RE = (
    "calib cent epicent fib goit kilomet centimet millimet nanomet micromet lust meag met mit och "
    "sab scept somb spect theat"
).split()
# Whole words spelt otherwise, with their forms.
_WORDS = {
    "aluminium": "aluminum",
    "aeroplane": "airplane",
    "aeroplanes": "airplanes",
    "ageing": "aging",
    "artefact": "artifact",
    "artefacts": "artifacts",
    "burnt": "burned",
    "defence": "defense",
    "defences": "defenses",
    "dreamt": "dreamed",
    "enquire": "inquire",
    "enquired": "inquired",
    "enquires": "inquires",
    "enquiries": "inquiries",
    "enquiring": "inquiring",
    "enquiry": "inquiry",
    "enrol": "enroll",
    "enrols": "enrolls",
    "fulfil": "fulfill",
    "fulfils": "fulfills",
    "instil": "instill",
    "instils": "instills",
    "jewellery": "jewelry",
    "judgement": "judgment",
    "judgements": "judgments",
    "acknowledgement": "acknowledgment",
    "acknowledgements": "acknowledgments",
    "learnt": "learned",
    "leapt": "leaped",
    "licence": "license",
    "licences": "licenses",
    "offence": "offense",
    "offences": "offenses",
    "pretence": "pretense",
    "pyjamas": "pajamas",
    "skilful": "skillful",
    "skilfully": "skillfully",
    "spoilt": "spoiled",
    "sulphur": "sulfur",
    "wilful": "willful",
    "woollen": "woolen",
    "counsellor": "counselor",
    "counsellors": "counselors",
    "fuelled": "fueled",
    "fuelling": "fueling",
    "jewellers": "jewelers",
    "jeweller": "jeweler",
    "catalogue": "catalog",
    "catalogues": "catalogs",
    "catalogued": "cataloged",
    "cataloguing": "cataloging",
    "dialogue": "dialog",
    "dialogues": "dialogs",
    "analogue": "analog",
    "analogues": "analogs",
    "programme": "program",
    "programmes": "programs",
    "gramme": "gram",
    "grammes": "grams",
    "kilogramme": "kilogram",
    "kilogrammes": "kilograms",
    "manoeuvre": "maneuver",
    "manoeuvres": "maneuvers",
    "manoeuvred": "maneuvered",
    "manoeuvring": "maneuvering",
    "haem": "heme",
    "grey": "gray",
    "greys": "grays",
    "greyed": "grayed",
    "greyer": "grayer",
    "greyest": "grayest",
    "greyish": "grayish",
    "greyscale": "grayscale",
    "mould": "mold",
    "moulds": "molds",
    "moulded": "molded",
    "moulding": "molding",
    "mouldy": "moldy",
    "moult": "molt",
    "smoulder": "smolder",
    "smouldering": "smoldering",
    "plough": "plow",
    "ploughs": "plows",
    "ploughed": "plowed",
    "sceptic": "skeptic",
    "sceptics": "skeptics",
    "sceptical": "skeptical",
    "scepticism": "skepticism",
}
# Greek "ae" and "oe" written "e" in American medicine and science.
_DIGRAPHS = {
    "anaem": "anem",
    "anaesth": "anesth",
    "diarrhoea": "diarrhea",
    "encyclopaedi": "encyclopedi",
    "foet": "fet",
    "gynaecolog": "gynecolog",
    "haem": "hem",
    "leukaemi": "leukemi",
    "oedem": "edem",
    "oesophag": "esophag",
    "oestrogen": "estrogen",
    "orthopaedi": "orthopedi",
    "paediatr": "pediatr",
}
_PREFIX = "(?:un|re|de|dis|mis|non|pre|over|under|co|self|anti|multi)?"
_RULES = (
    (lazy_pattern(rf"({_PREFIX}(?:{'|'.join(_OUR)})o)u(r.*)"), r"\1\2"),
    (lazy_pattern(rf"({_PREFIX}(?:{'|'.join(_ISE)}))is((?:{_ISE_ENDINGS}))"), r"\1iz\2"),
    # Not "-yses": the plural of analysis is written so in both.
    (lazy_pattern(rf"({_PREFIX}(?:{'|'.join(_YSE)}))ys((?:e|ed|ing|er|ers))"), r"\1yz\2"),
    (lazy_pattern(rf"({_PREFIX}(?:{'|'.join(_RE)}))re(s?)"), r"\1er\2"),
    (lazy_pattern(rf"({_PREFIX}(?:{'|'.join(_RE)}))red"), r"\1ered"),
    (lazy_pattern(rf"({_PREFIX}(?:{'|'.join(_RE)}))ring"), r"\1ering"),
)
_DIGRAPH = lazy_pattern(f"({'|'.join(_DIGRAPHS)})(.*)")


def canonical(word: str) -> str:
    """A lower-case English word as both its spellings are indexed: a number word as its digits, a
    British spelling as the American one, any other word as it is. Called once per distinct word (the
    stemmer's cache holds the result)."""
    found = _WORDS.get(word)
    if found is not None:
        return found
    # First the Greek digraph, so that "anaesthetise" meets the "-ise" rule as "anesthetise".
    m = _DIGRAPH.fullmatch(word)
    if m is not None:
        word = _DIGRAPHS[m.group(1)] + m.group(2)
    # Every family's rule in turn, so that a word in two of them (colourise) is read in both.
    for pattern, template in _RULES:
        m = pattern.fullmatch(word)
        if m is not None:
            word = m.expand(template)
    return word
