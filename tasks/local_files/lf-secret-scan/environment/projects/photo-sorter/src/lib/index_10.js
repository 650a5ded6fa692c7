build parse cache view render data
view value token parse model value
cache render parse data
model beta model config index test index beta
render token view render index data index value
beta alpha config token parse data value beta token
index beta value parse test beta parse
token model token build
view model data render
token cache model
render user test user token render
view value alpha test cache cache
token beta user
test model build parse
