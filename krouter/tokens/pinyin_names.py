"""Chinese names romanised with an apostrophe between syllables (Xi'an, Tian'anmen, Pu'er) as one word.

Pinyin writes an apostrophe before a syllable that starts with a, o or e when it would otherwise run
into the one before (Xi'an is two syllables, "xian" one), and English text writes such names with it as
often as without ("Xian"). Cut at the apostrophe, "Xi'an" was "xi" and the stop word "an", and 西安 had
no English word to reach. Joined only when both sides read as pinyin syllables of two letters or more
and the second starts with a, o or e, which no English contraction ('s, 't, 're, 've, 'll) does and
elisions of other languages rarely do (dell'azienda, qu'il, aujourd'hui stay cut): the rule is
pinyin's own (docs/decisions.md D77).
"""

from __future__ import annotations

from functools import lru_cache

from krouter.lazy_pattern import lazy_pattern

# Every toneless syllable CC-CEDICT reads a character as (a fixed inventory, written out so that cutting
# text into words never needs the dictionary store, whose key is itself computed by cutting text).
_SYLLABLES = frozenset(
    (
        "a ai an ang ao ba bai ban bang bao bei ben beng bi bia bian biao bie bin bing bo bu ca cai can cang "
        "cao ce cen ceng cha chai chan chang chao che chen cheng chi chong chou chu chua chuai chuan chuang "
        "chui chun chuo ci cong cou cu cuan cui cun cuo da dai dan dang dao de dei den deng di dia dian diao "
        "die ding diu dong dou du duan dui dun duo e ei en eng er fa fan fang fei fen feng fiao fo fou fu ga "
        "gai gan gang gao ge gei gen geng gong gou gu gua guai guan guang gui gun guo ha hai han hang hao he "
        "hei hen heng hong hou hu hua huai huan huang hui hun huo ji jia jian jiang jiao jie jin jing jiong "
        "jiu ju juan jue jun ka kai kan kang kao ke kei ken keng kong kou ku kua kuai kuan kuang kui kun kuo "
        "la lai lan lang lao le lei leng li lia lian liang liao lie lin ling liu lo long lou lu luan lue lun "
        "luo ma mai man mang mao me mei men meng mi mian miao mie min ming miu mo mou mu na nai nan nang nao "
        "ne nei nen neng ni nian niang niao nie nin ning niu nong nou nu nuan nue nun nuo o ou pa pai pan "
        "pang pao pei pen peng pi pian piao pie pin ping po pou pu qi qia qian qiang qiao qie qin qing qiong "
        "qiu qu quan que qun ran rang rao re ren reng ri rong rou ru ruan rui run ruo sa sai san sang sao se "
        "sen seng sha shai shan shang shao she shei shen sheng shi shou shu shua shuai shuan shuang shui shun "
        "shuo si song sou su suan sui sun suo ta tai tan tang tao te tei teng ti tian tiao tie ting tong tou "
        "tu tuan tui tun tuo wa wai wan wang wei wen weng wo wu xi xia xian xiang xiao xie xin xing xiong xiu "
        "xu xuan xue xun ya yan yang yao ye yi yin ying yo yong you yu yuan yue yun za zai zan zang zao ze "
        "zei zen zeng zha zhai zhan zhang zhao zhe zhen zheng zhi zhong zhou zhu zhua zhuai zhuan zhuang zhui "
        "zhun zhuo zi zong zou zu zuan zui zun zuo "
    ).split()
)
_APOSTROPHE = lazy_pattern("['’ʼ]")
_MAX_SYLLABLE = max(map(len, _SYLLABLES))


def join_apostrophes(text: str) -> str:
    """``text`` with the apostrophe of each pinyin name written with one (Xi'an, Jing’an) taken out, case
    kept; any other apostrophe left as it is."""
    if "'" not in text and "’" not in text and "ʼ" not in text:
        return text
    parts: list[str] = []
    last, end = 0, len(text)
    for m in _APOSTROPHE.finditer(text):
        at = m.start()
        start = at
        while start > last and _letter(text[start - 1]):
            start -= 1
        stop = at + 1
        while stop < end and _letter(text[stop]):
            stop += 1
        whole = (start == 0 or not text[start - 1].isalnum()) and (stop == end or not text[stop].isalnum())
        if whole and _pinyin_pair(text[start:at].lower(), text[at + 1 : stop].lower()):
            parts.append(text[last:at])
            last = at + 1
    parts.append(text[last:])
    return "".join(parts)


def _letter(ch: str) -> bool:
    return "a" <= ch <= "z" or "A" <= ch <= "Z"


def _pinyin_pair(head: str, tail: str) -> bool:
    return len(head) >= 2 and len(tail) >= 2 and tail[0] in "aoe" and _syllables(head) and _syllables(tail)


@lru_cache(maxsize=4096)
def _syllables(letters: str) -> bool:
    """True when ``letters`` read as one or more pinyin syllables."""
    ends = {0}
    for i in range(len(letters)):
        if i in ends:
            ends.update(i + n for n in range(1, _MAX_SYLLABLE + 1) if letters[i : i + n] in _SYLLABLES)
    return len(letters) in ends
