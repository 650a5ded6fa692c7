model view parse index token token cache alpha
view render build
alpha build view user token data index
config index beta config index user value parse
render token parse parse
cache cache alpha alpha render data index beta
alpha test config test model token value build config
token config token
parse alpha token beta view
config config model build build model alpha
render config model test config alpha render
model build value alpha data data build build
