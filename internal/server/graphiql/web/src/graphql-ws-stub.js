// Stand-in for the optional graphql-ws peer dependency of @graphiql/toolkit.
// It is only loaded when a subscriptionUrl is configured, which DebtQL's page
// never does; keeping it out of the bundle saves its weight.
export function createClient() {
  throw new Error('GraphQL subscriptions over websockets are not supported by this GraphiQL build');
}
