// The API reference on /docs: Swagger UI (loaded before this file, from this server) renders
// the OpenAPI document named by #reference. "Try it out" calls this deployment with your key.
window.addEventListener('DOMContentLoaded', () => {
  const target = document.getElementById('reference');
  if (target === null || typeof window.SwaggerUIBundle !== 'function') return;
  window.SwaggerUIBundle({
    url: target.getAttribute('data-openapi-url'),
    domNode: target,
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: -1,
    displayRequestDuration: true,
    // Never ask a validator on another site about the document.
    validatorUrl: null,
    // Swagger UI titles the document with an <h1>; the page has its own ("Getting started"),
    // so screen readers hear the reference's title as a section of the page.
    onComplete: () => {
      for (const title of target.querySelectorAll('h1')) title.setAttribute('aria-level', '2');
    },
  });
});
