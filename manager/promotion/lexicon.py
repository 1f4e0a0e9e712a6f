"""The word lists the gate reads claims with (text.py, support.py): English, small, and nothing more."""

from __future__ import annotations

__all__ = ["words"]


def words(text: str) -> frozenset[str]:
    """A word list written as one string."""
    return frozenset(text.split())


#: words that carry no claim of their own
STOP = words(
    "a about after all also an and any are as at be been before being by can could did do does down each "
    "every for from had has have he her here hers him his i if in into is it its just let lets longer may "
    "me might more most must my no not of off on once only or other our ours out over per please same "
    "shall she should so some such than that the their them then there these they this those to under up "
    "us very via was we were what when where which who whom will with would you your yours"
)

#: words that negate what follows them in their clause (skip, avoid, lack: a negative verb is a negation)
NEGATORS = words(
    "aren't avoid avoids can't cannot couldn't didn't doesn't don't exclude excluded hadn't hasn't "
    "haven't isn't lack lacking lacks mustn't neither never no nobody none nor not nothing omit shouldn't "
    "skip skipped wasn't weren't without won't wouldn't"
)

#: a negation's scope ends at the first of these after a content word
PREPOSITIONS = words("about at by during for from in into of on onto over to under with within")

#: month names: anchors ("may" only when capitalised beside a day)
MONTHS = words(
    "apr april aug august dec december feb february jan january jul july jun june mar march may nov "
    "november oct october sep sept september"
)

#: weekday names: anchors
WEEKDAYS = words("friday monday saturday sunday thursday tuesday wednesday")

#: words that widen a claim past the cases the evidence shows
GENERAL = words(
    "all always any anybody anyone anything every everybody everyone everything forever generally "
    "invariably never permanently universally whenever"
)

#: an uncertain statement: it supports only a claim that keeps the uncertainty
HEDGES = words(
    "allegedly apparently believe believes estimate estimated guess likely maybe might perhaps possibly "
    "probably reportedly roughly rumor rumour rumoured seem seems suppose supposedly tentatively think "
    "thinks thought unconfirmed unlikely unsure"
)

#: a claim that reports a hedge keeps it
ATTRIBUTION = words("according believes claims estimates expects reportedly said says suggests thinks")

#: a statement about one case
INSTANCE = words("exception exceptional exceptionally occasion once one-off one-time ticket transaction yesterday")

#: withdrawn figures support nothing
RETRACTION = words("incorrect invalidated obsolete retracted superseded withdrawn wrong")

#: the words of asking for and preferring: not claims when the user's own turn is the evidence
ASKING = words(
    "ask asked asks can could give i kindly let like liked likes make me mine my need needs please prefer "
    "preference preferred prefers rather request requested requests want wanted wants wish wishes would"
)

#: a fact subject's type prefix (model:, team:, ...) is not a word the evidence must hold
SUBJECT_TYPES = words("cluster customer db model org person process project service team topic user vendor")

#: forms no suffix rule reaches: irregular verbs (past and participle), plurals and adverbs, to their base
IRREGULAR = {
    form: base
    for base, forms in (
        line.split(":")
        for line in """
be:was were been being is are am|have:has had having|do:does did done doing|go:goes went gone|get:got gotten
make:made|take:took taken|give:gave given|lead:led|run:ran|write:wrote written|send:sent|pay:paid|say:said
tell:told|find:found|think:thought|bring:brought|buy:bought|build:built|begin:began begun|break:broke broken
choose:chose chosen|come:came|drive:drove driven|eat:ate eaten|fall:fell fallen|feel:felt|fight:fought
fly:flew flown|forget:forgot forgotten|freeze:froze frozen|grow:grew grown|hold:held|keep:kept|know:knew known
leave:left|lend:lent|lose:lost|mean:meant|meet:met|ride:rode ridden|rise:rose risen|see:saw seen|sell:sold
show:shown|sit:sat|sleep:slept|speak:spoke spoken|spend:spent|stand:stood|steal:stole stolen|teach:taught
tear:tore torn|throw:threw thrown|understand:understood|wake:woke woken|wear:wore worn|win:won
withdraw:withdrew withdrawn|draw:drew drawn|hide:hid hidden|seek:sought|catch:caught|deal:dealt|feed:fed
hang:hung|hear:heard|light:lit|lie:lay lain|shoot:shot|sing:sang sung|sink:sank sunk|slide:slid|spin:spun
strike:struck|swear:swore sworn|bind:bound|bend:bent|bite:bit bitten|bleed:bled|blow:blew blown|dig:dug
forgive:forgave forgiven|shake:shook shaken|shine:shone|stick:stuck|undertake:undertook undertaken
arise:arose arisen|bear:bore borne|beat:beaten|become:became|withhold:withheld|override:overrode overridden
rebuild:rebuilt|rewrite:rewrote rewritten|overtake:overtook overtaken|mistake:mistook mistaken|swim:swam swum
child:children|person:people|man:men|woman:women|foot:feet|tooth:teeth|mouse:mice|criterion:criteria
analysis:analyses|index:indices|life:lives|knife:knives|leaf:leaves|half:halves|self:selves
day:daily|week:weekly|month:monthly|year:yearly|hour:hourly|night:nightly|quarter:quarterly
""".replace("\n", "|").split("|")
        if line
    )
    for form in forms.split()
}
#: an auxiliary or a copula before "not" makes it deny the predicate ("is not included", "does not support")
AUXILIARIES = words(
    "am is are was were be been being do does did have has had can could will would shall should may might must"
)
