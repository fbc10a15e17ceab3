// Copy buttons on the account pages: <button data-copy-target="ID"> copies the text of #ID,
// says so on the button for a moment and to screen readers (a status region of its own).
const COPIED_FOR_MS = 2000;
let copyStatus = null;
function announce(message) {
  if (copyStatus === null) {
    copyStatus = document.createElement('span');
    copyStatus.className = 'sr-only';
    copyStatus.setAttribute('role', 'status');
    document.body.append(copyStatus);
  }
  copyStatus.textContent = message;
}
document.addEventListener('click', async (event) => {
  const button =
    event.target instanceof Element ? event.target.closest('[data-copy-target]') : null;
  if (button === null) return;
  const target = document.getElementById(button.getAttribute('data-copy-target') || '');
  if (target === null) return;
  const text = target.textContent || '';
  const label = button.dataset.label ?? button.textContent;
  button.dataset.label = label;
  let said;
  try {
    await navigator.clipboard.writeText(text);
    said = 'Copied';
    announce('Copied to the clipboard');
  } catch {
    // Without clipboard permission, select the text so the user can copy it by hand.
    const range = document.createRange();
    range.selectNodeContents(target);
    const selection = window.getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    said = 'Selected: press Ctrl+C';
    announce('Selected: press Control and C to copy');
  }
  button.textContent = said;
  clearTimeout(Number(button.dataset.timer));
  button.dataset.timer = String(
    setTimeout(() => {
      if (button.textContent === said) button.textContent = label;
    }, COPIED_FOR_MS),
  );
});

// A secret shown once must not come back from the back/forward cache: the page is sent with
// `Cache-Control: no-store`, and when a browser keeps it anyway, the secret is blanked as the
// page is left and the page is reloaded if it is shown again (the reload shows the account).
window.addEventListener('pagehide', (event) => {
  if (!event.persisted) return;
  for (const secret of document.querySelectorAll('[data-secret]')) secret.textContent = '';
});
window.addEventListener('pageshow', (event) => {
  if (event.persisted && document.querySelector('[data-secret]') !== null) window.location.reload();
});

// Enter in a field marked data-enter-presses="ID" presses button #ID (the channel search box
// searches); elsewhere Enter keeps the form's default, its first button, which saves.
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Enter' || event.isComposing) return;
  const field =
    event.target instanceof Element ? event.target.closest('[data-enter-presses]') : null;
  if (field === null) return;
  const button = document.getElementById(field.getAttribute('data-enter-presses') || '');
  if (button === null) return;
  event.preventDefault();
  button.click();
});
