/** `navigation_views` in POST /register: the user's saved navigation views. */
import { feature } from './registry.ts';
import { registerNavigationViews } from '../actions/navigation-views.ts';

export default feature({
  state: [
    {
      types: ['navigation_views'],
      async fetch(svc, opts) {
        return { navigation_views: await registerNavigationViews(svc.store.db, opts.user.id) };
      },
    },
  ],
});
