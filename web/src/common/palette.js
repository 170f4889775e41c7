// Colours of population-protocol states, by index into the protocol's `states`: the viewer fills
// each agent with its state's colour and the run report draws each state's count in the same one,
// so that a state looks alike on both pages. 32 colours that stay apart from one another (ten
// strong ones first: most protocols have two to four states), then golden-angle hues.
export const STATE_PALETTE = [
  '#4e79a7', '#f28e2b', '#e15759', '#59a14f', '#b07aa1', '#edc948', '#76b7b2', '#ff9da7', '#9c755f', '#bab0ac',
  '#08519c', '#a50f15', '#006d2c', '#54278f', '#b35806', '#01665e', '#c51b7d', '#8c6d31', '#4d4d4d', '#bcbd22',
  '#a0cbe8', '#ffbe7d', '#8cd17d', '#d4a6c8', '#f1ce63', '#86bcb6', '#fabfd2', '#d7b5a6', '#17becf', '#7570b3',
  '#ff7f00', '#66a61e',
];

/// The colour of state index i.
export function stateColour(i) {
  return i < STATE_PALETTE.length ? STATE_PALETTE[i] : `hsl(${(i * 137.508) % 360}, 65%, 50%)`;
}

/// Dark or white text, whichever reads better on the state colour of index i.
export function stateInk(i) {
  const c = stateColour(i);
  if (!c.startsWith('#')) return '#0f172a';
  const [r, g, b] = [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16) / 255);
  return 0.299 * r + 0.587 * g + 0.114 * b > 0.55 ? '#0f172a' : '#ffffff';
}
