/**
 * The texts bench/fidelity synthesizes (written for it; numbers spelled out in words, as the
 * synthesizers read them). Changing this file changes the clips' cache key: they are regenerated.
 */

/** Voice-agent turns: one-word replies, yes/no, digits read one by one, short commands. */
export const AGENT_TURNS: string[] = [
  "Yes.",
  "No.",
  "Two.",
  "Cancel my order.",
  "Seven three nine.",
  "Check my balance.",
  "Representative.",
  "That's right.",
  "Four.",
  "Go back.",
  "Nope.",
  "Sure.",
  "Repeat that please.",
  "One two three four.",
  "Billing.",
  "Yes please.",
  "Eight.",
  "Transfer me to an agent.",
  "Not now.",
  "Zero.",
  "Six one.",
  "Speak to a person.",
  "Correct.",
  "Three.",
  "Next appointment.",
  "No thanks.",
  "Five nine two.",
  "Main menu.",
  "Okay.",
  "Nine.",
];

/** Dictated phone and card numbers: one breath each, digits in groups separated by commas. */
export const NUMBER_DICTATIONS: string[] = [
  "You can reach me at four one five, five five five, zero one three two, and my extension is two zero seven.",
  "My card number is four five three two, seven seven one eight, two nine zero four, six six one three.",
  "The account number is eight eight one, four zero two, nine nine six, and the routing number is zero two one, zero zero zero, zero two one.",
  "Call me back on six five zero, three one nine, eight eight four seven, any time after five.",
  "The expiry date is zero nine, two eight, and the security code on the back is four four seven.",
  "My member ID is seven two six, one one nine, three zero five, and my zip code is nine four one zero three.",
  "Please send it to two one two, six three one, four zero eight eight, that is my mobile number.",
  "The confirmation code is five one nine, seven seven zero, two four, and the amount was eighty two dollars.",
];

/**
 * Reading passages (≥ 30 s each at the synthesizers' rates), sentences joined by commas and "and"
 * so that no pause reaches the endpointing window.
 */
export const READINGS: string[] = [
  "The harbor was quiet in the early morning, and the fishing boats rocked gently against the wooden pier, while a few gulls circled above the water looking for scraps, and the old harbor master walked along the dock with a mug of coffee in his hand, checking the ropes and counting the boats that had already gone out, because the weather report had promised a calm day with light winds from the west, and everyone in the village knew that such days were rare at this time of the year, so they wanted to make the most of it before the autumn storms arrived and the boats had to stay in the harbor for days on end",
  "To reset your router, first unplug the power cable and wait for about thirty seconds, then plug it back in and watch the lights on the front panel, and when the power light turns solid green you can open the settings page in your browser, sign in with the password printed on the sticker underneath the device, and choose the option to restore the factory settings, after which the router will restart on its own, and you will need to set up your wireless network name and password again before any of your devices can connect, so keep that password somewhere safe and write it down on paper",
  "The committee met on Tuesday afternoon to discuss the budget for the coming year, and after a long debate the members agreed to increase the spending on public libraries and parks, while reducing the money set aside for new office furniture, and the chair thanked everyone for their patience and asked the treasurer to prepare a detailed report for the next meeting, which will take place in the town hall at the beginning of next month, and members of the public are welcome to attend and ask questions about any of the items on the agenda, including the plans for the new swimming pool",
  "My grandmother grew up on a small farm in the hills, where she learned to milk the cows before sunrise and to bake bread in a stone oven, and she often told us stories about the long winters when the snow was so deep that the children could not walk to school for weeks, so they stayed at home and helped their parents mend fences and repair tools, and in the evenings the whole family sat around the fire listening to the radio and playing cards until it was time to sleep, and she said that those were the happiest years of her whole life, and we never grew tired of hearing them",
];

/** Sentences the babble is made of (other voices mixed under the clip's speech). */
export const BABBLE: string[] = [
  "I told him the meeting was moved to Thursday but he never listened to a word I said about it",
  "We should probably get the groceries before the store closes tonight because there is nothing left in the fridge",
  "The train was late again this morning so I missed the first half of the lecture on chemistry",
  "She bought a new bicycle last week and has been riding it to work every single day since then",
  "If the weather stays like this we might go camping near the lake at the end of the month",
];
