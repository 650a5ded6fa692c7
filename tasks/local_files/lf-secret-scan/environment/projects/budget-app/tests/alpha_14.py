user model value data view index cache
view cache token index beta parse config
beta data parse cache alpha value test view
user token parse config config config user
test alpha render build beta cache data
model data index render model parse user model
token model index
view user parse beta value
beta cache token data
render index value model config alpha
