// Copy buttons on the account pages: <button data-copy-target="ID"> copies the text of #ID.
document.addEventListener('click', async (event) => {
  const button =
    event.target instanceof Element ? event.target.closest('[data-copy-target]') : null;
  if (button === null) return;
  const target = document.getElementById(button.getAttribute('data-copy-target') || '');
  if (target === null) return;
  const text = target.textContent || '';
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    // Without clipboard permission, select the text so the user can copy it by hand.
    const range = document.createRange();
    range.selectNodeContents(target);
    const selection = window.getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    button.textContent = 'Selected: press Ctrl+C';
  }
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
