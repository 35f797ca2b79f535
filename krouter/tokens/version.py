"""The tokeniser's version: stored in every index, and part of the index file's name (``index_path``),
so that an index is built again when what a page's text turns into changes, and two KRouter versions on
one machine never share a file. Its own module: the file name is needed where importing the tokeniser
(~50 ms) is not.
"""

# 5: a page whose opening frontmatter fence is never closed has its fields read (status: superseded).
# 6: a combining mark (a vowel sign, a virama) is part of the word it follows, not a cut between two.
# 7: "US" in capitals is the country ("usa"), not the pronoun; "8th" is 8. 8: "U.S.A" is "usa" (not "usaa").
# 9: a number written with dots (5.7, v8.0.36, 10.0.0.1) is also one term, and each dotted prefix of it.
# 10: not an amount (after a currency sign, before a per cent sign); a unit against it is its own word.
# 11: a number is dotted whole or not at all (7.05%: not 7.0); an amount before a currency word too;
# "v2.1" also gives "v2".
# 12: a number after a comma is dotted unless the comma groups thousands (6.2，7.0); more currency words.
# 13: a page's amount is also indexed whole, marked (¤1.99).
# 14: an identifier written with an underscore (page_id, _di) is also indexed whole.
# 15: a word with an apostrophe between two parts of two letters or more is one word (Xi'an).
# 16: only a pinyin name written with an apostrophe (Xi'an, Tian'anmen) is one word.
# 17: a British spelling is read as the American one (colour as color: ``spelling``).
# 18: a number word is its digits (five is 5); 17's hyphenated words indexed closed are out again (D85).
# 19: a hyphenated word is also indexed closed, marked, outside the length (‐rollout: ``compounds``);
# number words are words again, and litre, practise, tyre keep their spelling (docs/decisions.md D86).
# 20: a trigger's terms are read as a question's are now: 多少钱 a frame (D93), 数 a count (D90).
# 21: direction marks, variation selectors, Arabic and Hebrew vowel points dropped; Turkish İ is i;
# a name glued to its version (Redis7.0) is the name and the version; a kanji beside kana indexed alone.
# 23: a Korean word is not cut to one syllable by an ending that cannot follow it (차이나: not 차 + 이나).
# 24: a number grouped in thousands with commas is also indexed whole, marked as an amount (1,000: ¤1000).
# 25: a date (2025-03-04, 3月4号, March 5th) is also indexed as its month and day, marked (§03-04: ``dates``).
# 26: 25's dates read alike by a page and a question (a full stop or a hyphen after an ISO date, 5 May 2025,
# 04/03/2025 as either day, 2025.03.04, 3월 4일; no 30 February, no "may 3rd-party").
# 27: a day before a month's name first (4 March 5 people), a short name's with a year after (5 Mar 2025), no
# date inside a word (v2025.03.04) or after a time (10:30 March).
# 28: a day in Han numerals (三月四号, 十二月二十五日) is a date too.
# 29: a trigger's "under what circumstances" (什么情况下) is a frame, as a question's is.
# 30: a weekday before a date no longer hides it (周三3月4号); 什么情况下 takes no 下 of 下载 or 下架; "ok",
# "okay" and 像 ("like") are stop words.
# 31: 张 no pointing measure word (a surname); 像 a word again, but before "…那样/一样" in a question.
# 32: the unit a price is asked per is read alone (多少钱一套: 套; 每箱多少钱: 箱), and an agent's request to the
# notes ("Look up our …", "what do the notes say about") and the asker's belief ("i thought") are frames, in a
# trigger as in a question.
# 33: a cold review: no unit's 一 after a numeral (十一天), a unit after the frame only where the question ends,
# the belief frame only where a sentence starts, only the notes as the agent's request (not a wiki).
# 34: a second review: no price unit's 一 after a day (周一晚, 星期一, 初一).
# 35: where the asker read it ("I have €11.90 in my notes", "according to our notes") is a frame, and so are
# words of speech and source (mentioned, discussed, "talked about", "according to", "based on", likely).
# 36: a Latin letter's accents are dropped (Inês is ines, café is cafe), as FTS5's unicode61 drops them.
# 37: asking the notes ("check the team notes", 帮我查一下, 笔记里有没有写) and who asks ("X is asking what",
# "wants to know") are frames, in a trigger as in a question.
# 38: a number counted in 千, 万 or 亿 (5万, 1.5 万) is the number in digits (50000), a page's indexed as an amount too.
# 39: a cold review: compound counters read whole (3千万), 1万2千 left as written; the Chinese request frame
# takes no piece of the next word; a text's identifiers are read with accents dropped too.
# 40: a second review: 千 of a unit (千瓦) is no thousand, a number after a verb's 到 is read, 2千多万 is left;
# the request frame takes no 笔记本 nor a two-character verb's first character.
# 41: a third review: 记录中心 and 笔记App keep their words; 千伏 is a unit, 5千字 a count.
# 42: a fourth review: 笔记中 is the notes' place again (not 记录中心), 笔记 App keeps 笔记; 千牛, 千欧 are units.
# 43: frontmatter that does not open the page (a blank line or a comment above it, a space before its
# fence, a comment after it) and Dataview fields below the top read for a replaced status; "superseeded".
# 44: a price said the spoken way (16块5) is also indexed as its number (16.5), as a question reads it.
# 45: the verb a price is asked with (花多少钱, 交多少钱) is part of the frame, in triggers as in questions.
# 46: the bound a quantity is asked within (以内, 之内, 以下, 以上, 左右) is a stop word.
# 47: the verb of paying only as a word of its own (鲜花 keeps its 花), in triggers as in questions.
# 49 (48 was aa57793's, reverted): the verb of paying is dropped once the segmenter cut it out as a
# word before the price frame (房租/交/多少), in triggers as in questions; no pattern over the text.
# 50: a Korean number counted in 만, 천 or 억 (23만원, 5천, 1억) is also indexed as its digits.
# 51: a Korean counter right after a number with its particle (10명이, 1층에서) is also indexed alone.
# 52: a date written with underscores (2025_03_14, a Logseq journal's file name) is a date.
TOKENIZER_VERSION = "52"
