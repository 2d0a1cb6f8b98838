/**
 * The Google Chat message of an event: one card in `cardsV2`, the form Google Chat incoming
 * webhooks accept (`cardsV2: [{ cardId, card: { header, sections: [{ widgets }] } }]`).
 *
 * The card: a header (title, and the event type as subtitle), one section of `decoratedText`
 * widgets (subject, action, each reference, time, each with its label as `topLabel`) and a
 * `buttonList` with an "Open" button whose `onClick.openLink` goes to the console page. Card text
 * is read as a small HTML subset, so values have `&`, `<` and `>` escaped as entities; header
 * fields are plain text. `cardId` is the event id, the same on every attempt of one event. The
 * whole message stays far below Google Chat's 32,000-byte limit (values are bounded by
 * ChatSummary.MAX_VALUE).
 */
import { clip, escape, type Input, summarize } from "./ChatSummary.js"

export interface DecoratedText {
  readonly decoratedText: { readonly topLabel: string; readonly text: string; readonly wrapText: true }
}
export interface ButtonList {
  readonly buttonList: {
    readonly buttons: ReadonlyArray<{ readonly text: string; readonly onClick: { readonly openLink: { readonly url: string } } }>
  }
}
export type Widget = DecoratedText | ButtonList

export interface Card {
  readonly header: { readonly title: string; readonly subtitle: string }
  readonly sections: ReadonlyArray<{ readonly widgets: ReadonlyArray<Widget> }>
}
export interface Message {
  readonly cardsV2: ReadonlyArray<{ readonly cardId: string; readonly card: Card }>
}

const field = (topLabel: string, text: string): DecoratedText => ({ decoratedText: { topLabel, text: escape(text), wrapText: true } })

export const make = (input: Input): Message => {
  const s = summarize(input)
  return {
    cardsV2: [{
      cardId: clip(input.event.id, 64),
      card: {
        header: { title: clip(s.title, 150), subtitle: s.type },
        sections: [{
          widgets: [
            field("Subject", s.subject),
            field("Action", s.action),
            ...s.references.map((r) => field(r.label, r.value)),
            field("Time", s.time),
            { buttonList: { buttons: [{ text: "Open", onClick: { openLink: { url: s.openUrl } } }] } }
          ]
        }]
      }
    }]
  }
}
