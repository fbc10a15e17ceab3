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
  });
});
