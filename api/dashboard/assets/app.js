// Earshot dashboard: small progressive enhancements. Every page works without this file.

document.addEventListener('DOMContentLoaded', () => {
  // A form's error summary takes the focus, so a screen reader announces it.
  const summary = document.querySelector('.error-summary');
  if (summary) summary.focus();

  // Copy buttons next to secrets shown once.
  for (const button of document.querySelectorAll('button[data-copy]')) {
    button.addEventListener('click', async () => {
      const input = document.getElementById(button.dataset.copy);
      if (!input) return;
      try {
        await navigator.clipboard.writeText(input.value);
      } catch {
        input.select();
        document.execCommand('copy');
      }
      button.textContent = 'Copied';
      setTimeout(() => (button.textContent = 'Copy'), 2000);
    });
  }

  // Destructive actions ask first.
  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }

  // Entity picker: suggestions from entity search while typing; each adds a checked entity.
  for (const picker of document.querySelectorAll('[data-entity-picker]')) {
    const input = picker.querySelector('input[type="search"]');
    const list = picker.querySelector('.suggestions');
    const chosen = document.getElementById(picker.dataset.entityPicker);
    if (!input || !list || !chosen) continue;
    let timer;
    let seq = 0;
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const q = input.value.trim();
        const mine = ++seq;
        if (q.length < 2) {
          list.replaceChildren();
          return;
        }
        const res = await fetch(`${picker.dataset.searchUrl}?q=${encodeURIComponent(q)}`, {
          headers: { accept: 'application/json' },
          credentials: 'same-origin',
        }).catch(() => undefined);
        if (!res?.ok || mine !== seq) return;
        const { data } = await res.json();
        list.replaceChildren(
          ...data.map((entity) => {
            const li = document.createElement('li');
            const add = document.createElement('button');
            add.type = 'button';
            add.className = 'secondary';
            add.textContent = `Add ${entity.name} (${entity.kind_label})`;
            add.addEventListener('click', () => {
              const value = `${entity.entity_type}:${entity.id}`;
              const existing = chosen.querySelector(`input[value="${CSS.escape(value)}"]`);
              if (existing) {
                existing.checked = true;
              } else {
                const row = document.createElement('div');
                row.className = 'choice';
                const box = document.createElement('input');
                box.type = 'checkbox';
                box.name = 'entity';
                box.value = value;
                box.checked = true;
                box.id = `f-entity-added-${chosen.querySelectorAll('input').length}`;
                const label = document.createElement('label');
                label.htmlFor = box.id;
                label.textContent = `${entity.name} (${entity.kind_label})`;
                row.append(box, ' ', label);
                chosen.append(row);
              }
              list.replaceChildren();
              input.value = '';
              input.focus();
            });
            li.append(add);
            return li;
          }),
        );
      }, 200);
    });
  }
});
