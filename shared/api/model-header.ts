// Which model a user request acts on: its name, in a header rather than in every operation's
// request, so that every command takes `-m` alike. Absent: bootstrap's model, `default`, as
// before there were many models. On AWS the CLI signs it with the rest of the request.
export const MODEL_HEADER = 'x-drover-model';
