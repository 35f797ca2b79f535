"""Function words that carry no content in a question, in English and Chinese; and those of the
Latin-script languages nearest to English, which show a question is in one of them.

Counted as content, these made plain questions look unanswerable ("what" is on no page) and let
neighbour questions through (they share "what" and "do" with every page). The English list is the
usual closed-class set plus the filler verbs and adverbs people put in questions to an assistant.
"""

from __future__ import annotations

ENGLISH = frozenset(
    """
a about above across actually after again against all almost along already also although always am among
an and another any anybody anyone anything anyway anywhere are aren around as at basically be became
because been before being below beside besides between both but by can cannot could couldn currently did
didn do does doesn doing don done down during each either else elsewhere enough etc even ever every
everybody everyone everything exactly few for from further furthermore get gets getting got had hadn has
hasn have haven having he her here hers herself him himself his how however i if in indeed into is isn
it its itself just kind know let lets like ll many may maybe me might mine more moreover most mostly
much must mustn my myself need needs neither never nevertheless no nobody none nor not nothing now of
off often ok okay on once one ones only onto or other others otherwise ought our ours ourselves out over
own per perhaps please quite rather re really s same say says shall shan she should shouldn since so some
somebody someone something sometimes somewhat sort still such sure t tell than that thats the their
theirs them themselves then there thereby therefore these they thing things this those though through
thus to too toward towards under unless until up upon us ve very via was wasn we were weren what
whatever whats when whenever where whereas wherever whether which while who whoever whom whose why will
with within without won would wouldn yet you your yours yourself yourselves
""".split()
)

CHINESE = frozenset(
    """
几个 几次 几天 几点 几年 多久 多长 多长时间 多大 多高 多快 多远 一次 什么样 啥时候 什么时候 哪天 哪年 现在还 如今 最近
一 一下 一个 一些 上 下 不 与 个 中 为 为什么 为何 么 之 之前 之后 也 了 于 些 什么 从 他 他们 以 以前 以及 以后 会 你 你们 使用 关于 其 再 几 到 又 及 可 可以 向 吗
吧 呀 告诉 呗 呢 和 咱们 哦 哪 哪个 哪些 哪儿 哪种 哪里 啊 啥 嘛 在 地 多少 大家 她 她们 如何 它 它们 对 对于 就 已 已经 并 并且 应当 应该 当前 很 得 怎么 怎么样 怎样
您 我 我们 或 或者 所 把 时 时候 是 是不是 是否 最 有 有没有 没 没有 现在 用 的 的话 目前 着 知道 等 等等 给 而 能 能够 自己 被 要 让 该 请 请问 谁 跟 过 还 还是 这
这个 这些 这样 这里 那 那个 那些 那样 那里 都 采用 里 问
"""
    # The spoken register of a question to a colleague (issue #12): pronouns (咱, 俺), particles (啦, 嘞),
    # "there's a" (有个, 有位: 有 and a measure word, both function words already; D134),
    # question words (咋, 为啥, 干啥), colloquial numerals (俩, 仨), light verbs that only stand in for
    # another verb (弄, 搞, 咋整), pointing words (这边, 那块) and adverbs of habit or degree (平时, 一般,
    # 到底). Closed classes, like the English list: they ask, they do not name a subject.
    """
咱 俺 咱家 人家 大伙 大伙儿 啦 咯 呐 嘞 哇 噢 哈 嗯 呃 咋 咋样 咋办 咋整 咋弄 咋搞 咋回事 怎 怎么办 怎么弄
怎么搞 为啥 干啥 干嘛 啥样 啥事 多会儿 几时 俩 仨 两 弄 搞 这边 那边 哪边 这块 那块 哪块 这儿 那儿 平时 平常 有个 有位
一般 通常 到底 究竟 具体 大概 大约 一共 总共 还能 还得 还要 不能 不会 不用 得要
"""
    # Conjunctions and modal verbs, the counterparts of the English list's "and", "but", "must", "need".
    """
而且 但是 但 不过 然后 所以 因为 如果 要是 另外 而是 即使 虽然 只要 只有 除了 必须 需要 需 须 务必 一定 肯定
可能 能否 可否 应 比较 非常 特别 挺 一直 同时 当时 两个 哪位 哪家 哪一 第几
"""
    # The written register of reading-comprehension and formal questions: 何-interrogatives (何时, 何处;
    # not 何 alone, a common surname), the preposition 由 (由谁负责) and demonstratives (此鱼 is "this
    # fish", 某人 "someone"). Closed classes again.
    """
何时 何地 何处 何人 何种 何为 何以 何谓 何在 何方 由 由谁 由谁来 此 彼 某
"""
    # The bound a quantity is asked within (5kg 以内, 三天之内, 100 块以下, 20 人左右): the page states the
    # quantity ("up to 5kg", "≤ 3 天"), seldom the postposition, which counted as a word it lacks.
    """
以内 之内 以下 以上 左右
""".split()
)

# Not stop words of ours: evidence that a question is in a language KRouter does not read
# (``languages.marks_a_language``), and the Spanish words a question opens with after ¿ or ¡
# (``names.written_as_name``): articles, pronouns, possessives, prepositions, conjunctions, particles,
# question words and the commonest auxiliaries. Not those English writes as words or abbreviations
# (in, was, die; est, mit, os, en, sans, del): an English question holding one must not read as
# foreign. German apart: it writes every noun with a capital (``languages.capitalises_nouns``).
GERMAN = frozenset(
    """
der das den dem des ein eine einen einem und ist nicht für auf von zu wir ich es sie noch doch
nur oder aber auch schon bei aus nach über sind hat haben wird werden kann können muss gibt unsere
unser unserem unseren mein meine dein deine ihr ihre sein seine euer dieser diese dieses diesem jeder
jede jedes jeden alle allen kein keine keinen viel viele vielen hier dort jetzt heute immer eigentlich
bitte gerade etwa denn wie wann wo warum wer wen wem welche welcher welches wieviel wieviele
zum zur vom beim
""".split()
)
FOREIGN = GERMAN | frozenset(
    # French, Spanish, Portuguese, Italian, Dutch.
    """
le la les un une des que qui pour dans sur avec pas ce cette il elle nous vous ils au ne
mais ou donc très tout tous sont ont fait faut peut chez sous vers leur nos notre votre mon ma mes
combien quel quelle quels quelles quand comment pourquoi où
el los las una unos unas por para con se lo al pero muy está están hay tiene hace nuestro
nuestra nuestros mi su sus sin sobre entre hasta desde
cómo qué cuál cuáles dónde cuándo cuánto cuánta cuántos cuántas quién quiénes cada es
uma da das em não mas muito são tem há nosso nossa nossos meu minha até pelo
pela ainda como qual onde quando quanto quantos quantas quem porque você vocês nós já também
il lo gli di della che ma molto sono ha hanno nostro nostra mio mia senza sul sulla ancora non
perché cosa dove quale quanti quante
het een van voor niet op maar ook nog zijn heeft hebben wordt moet onze ons mijn bij uit naar er
dit dat wat hoe waar wanneer welke hoeveel
""".split()
)
