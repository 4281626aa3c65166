/**
 * The credentials form of a protected server: a bearer token, or (for writes) a user and a
 * password. Kept in memory only, for as long as the page is open.
 */
import { el } from './dom.js';
import type { Credentials } from './endpoint.js';

export interface CredentialsForm {
  element: HTMLElement;
  read(): Credentials | undefined;
  show(): void;
}

export function credentialsForm(withUserAndPassword: boolean, visible: boolean): CredentialsForm {
  const token = el('input', { attrs: { type: 'password', name: 'token', autocomplete: 'off', 'aria-label': 'Token' } });
  const user = el('input', { attrs: { type: 'text', name: 'user', autocomplete: 'username', 'aria-label': 'User' } });
  const password = el('input', { attrs: { type: 'password', name: 'password', autocomplete: 'current-password', 'aria-label': 'Password' } });
  const fields: HTMLElement[] = [el('label', { text: 'Token ' }, [token])];
  if (withUserAndPassword) {
    fields.push(el('span', { text: 'or' }), el('label', { text: 'User ' }, [user]), el('label', { text: 'Password ' }, [password]));
  }
  const element = el('fieldset', { className: 'credentials' }, [el('legend', { text: 'Credentials' }), ...fields]);
  element.hidden = !visible;
  return {
    element,
    read() {
      if (token.value !== '') return { token: token.value };
      if (user.value !== '') return { user: user.value, password: password.value };
      return undefined;
    },
    show() {
      element.hidden = false;
    },
  };
}
