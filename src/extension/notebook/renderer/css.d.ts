// esbuild.js loads stylesheets as text for the renderers (a notebook output has no <link>).
declare module '*.css' {
  const text: string;
  export default text;
}
