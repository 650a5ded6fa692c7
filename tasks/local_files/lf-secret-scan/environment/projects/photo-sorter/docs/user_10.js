test data view view test user value beta test
model model model token test data value render index
token alpha view user render
data value beta parse value token alpha model
cache config index value model model alpha
test render view data model user data beta
