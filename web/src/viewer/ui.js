// The viewer's page state, shared by its modules: the loaded trace, the step shown, the selected
// node, playback, the layout and the pan/zoom of the canvas, and the View and waits-for relation
// at the step; and the page's elements by id.
export const $ = (id) => document.getElementById(id);
export const ui = {
  trace: null, t: 0, selected: null, playing: false, lastFrame: 0, carry: 0,
  layout: null, lattice: null, view: { scale: 1, x: 0, y: 0 }, sys: null, waits: null, loadMs: 0,
};
window.lmxViewer = ui;  // for tests and the console
